# SPDX-License-Identifier: MIT
"""The color rows of bench/peers.py (see FAMILIES there)."""

OPS = {}
DST_SIZE = {}
BYTES = {}
