# SPDX-License-Identifier: MIT
"""The stats rows of bench/peers.py (see FAMILIES there)."""

OPS = {}
DST_SIZE = {}
BYTES = {}
