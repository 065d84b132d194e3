"""Streaming log template miner with number normalisation.

A Drain-style fixed-depth parse tree (He et al., ICWS 2017, the algorithm behind ``drain3``)
re-implemented here for three reasons the projector cares about:

* **Stable identity.** A template's id is a short hash of its final text, so the same event
  shape gets the same ``tpl:<id>`` ref in every process and every run; drain3's cluster
  counters depend on arrival order.
* **Final templates.** Drain clusters only ever generalise, so every line remembers its
  cluster and is reported with the cluster's *final* template after the batch.
* **Speed.** Only words that hold a digit go through the combined masking regex (every
  default mask needs one), masked words and masked lines are cached, so a repeated event (the
  common case in incident logs) costs little more than a dictionary lookup.

Beyond Drain, tokens are split on ``= : , ; ( ) [ ] { } " ' |`` so ``key=value`` pairs compare
position by position; a token holding a digit or a masked value is variable but keeps its text
until it actually varies; similarity counts only the template's constant tokens; and a final
pass folds clusters whose constant skeletons are equal (an empty or repeated variable changes
the token count, not the event).

Masking is generic (numbers, hex, IPs, UUIDs, durations, sizes, ids); nothing is keyed on a
dataset's name.
"""

from harness.logmining.config import (
    WILDCARD,
    MinedTemplate,
    MinerConfig,
    template_id_of,
)
from harness.logmining.lines import mine_lines, parse_log_format
from harness.logmining.miner import TemplateMiner, mask_content

__all__ = [
    "WILDCARD",
    "MinedTemplate",
    "MinerConfig",
    "TemplateMiner",
    "mask_content",
    "mine_lines",
    "parse_log_format",
    "template_id_of",
]
