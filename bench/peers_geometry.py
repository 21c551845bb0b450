# SPDX-License-Identifier: MIT
"""The geometry rows of bench/peers.py (see FAMILIES there)."""

OPS = {}
DST_SIZE = {}
BYTES = {}
