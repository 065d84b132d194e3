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
position by position (a quoted string, a URL and a Windows path stay one token each); a token
is variable when it holds a digit or a masked value, has the shape of a value (a path, URL,
host name, email), or sits where values sit (after ``key=``, inside quotes but for a quoted
text that opens the message, as an element of a bracketed list of single words), but it keeps
its text until it actually varies; similarity counts only the template's constant words, and
lines whose delimiters differ never share a cluster. After mining, clusters of one event are
folded together on evidence the whole batch gives (:mod:`._merge`): equal constant skeletons,
one cluster covering another, sibling clusters that differ in one position (a token, a
word written between spaces, or a run of words) where many distinct values occur, and words
standing in a variable's place.

Masking is paid once per *digit key* (a content with every digit written ``0``): contents
that differ only in their digits are masked at the same spans, so a batch of distinct lines
that differ only in numbers costs a byte translation and a lookup per line.

``harness logs mine`` splits each line's header off before mining, with a loghub-style format
or the format :func:`detect_format` finds in the file's first lines with the shared catalog of
log formats (:mod:`harness.logformats`, through :mod:`.headers`).

Masking and shapes are generic (numbers, hex, IPs, UUIDs, paths, URLs, hosts, emails); nothing
is keyed on a dataset's name.
"""

from harness.logmining.config import (
    WILDCARD,
    MinedTemplate,
    MinerConfig,
    template_id_of,
)
from harness.logmining.headers import DetectedFormat, detect_format
from harness.logmining.lines import mine_lines, parse_log_format
from harness.logmining.miner import TemplateMiner, mask_content

__all__ = [
    "WILDCARD",
    "DetectedFormat",
    "MinedTemplate",
    "MinerConfig",
    "TemplateMiner",
    "detect_format",
    "mask_content",
    "mine_lines",
    "parse_log_format",
    "template_id_of",
]
