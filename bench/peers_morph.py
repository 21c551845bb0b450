# SPDX-License-Identifier: MIT
"""The morph rows of bench/peers.py (see FAMILIES there)."""

OPS = {}
DST_SIZE = {}
BYTES = {}
