"""Pieces of a shell command line that the command tables share."""

from __future__ import annotations

__all__ = ["OPTS", "OVERWRITE"]

# Command-line options: short clusters and long options, with a value glued on by "=".
OPTS = r"((-[a-z]+|--[\w-]+(=\S+)?|--)\s+)*"
# Emptying a file in place: a bare redirect, or a copy of an empty or random device.
OVERWRITE = r"((^|[^>])>\s*|\bcp\s+(-\S+\s+)*/dev/(null|zero|u?random)\s+)"
