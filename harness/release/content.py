"""Released text is data: links defanged, dangerous commands held back, injections caught.

Tool data (a log line, a database value, a runbook excerpt) can carry text written by an
attacker, and the agent may quote it. Whatever reaches a released result therefore passes
three deterministic checks here:

- :meth:`ContentPolicy.defang` rewrites every URL whose host is not on the configured
  allowlist (``https://evil.example/x`` → ``hxxps://evil[.]example/x``), so that nothing an
  operator reads is one click from an attacker's server;
- :func:`dangerous_command` recognises commands that pipe a download into a shell, disable a
  security control or destroy data — never released as a next step, whoever suggested them;
- :func:`injection` recognises instruction-shaped text: text addressed to a model or an agent
  (override and role markers, directives about "your reply", hidden-instruction wrappers,
  tool-steering, exfiltration requests, notes addressed to an AI or LLM reader). A hit
  anywhere in a report downgrades it to a SafeFallback.

The patterns name classes of attack, not payloads; ``tests/harness/release/test_content.py``
holds several inputs per class and the bundled incident data as the no-false-positive check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.textnorm import plain, visible

__all__ = ["ContentPolicy", "dangerous_command", "injection"]


def _readings(text: str) -> tuple[str, ...]:
    """The text as a reader sees it, once with look-alike letters folded to Latin and once
    without (a Russian sentence must stay Russian), whitespace runs folded in both."""
    seen = visible(text)
    folded = plain(text)
    readings = (seen, folded) if folded != seen else (seen,)
    return tuple(re.sub(r"\s+", " ", r) for r in readings)


# ---------------------------------------------------------------- injections

_I = re.IGNORECASE
# A download piped into an interpreter: both an injection (it is what attackers plant) and a
# dangerous command.
_PIPE_TO_SHELL = re.compile(
    r"\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^|;\n]{0,200}\|\s*(sudo\s+)?"
    r"(ba|z|k|da)?sh\b|"
    r"\b(curl|wget)\b[^|;\n]{0,200}\|\s*(sudo\s+)?(python\d?|perl|ruby|node|php)\b|"
    r"\b(ba)?sh\s+(-c\s+)?[\"']?\s*(<\(|\$\()\s*(curl|wget)\b|"
    r"\bbase64\s+(-d|--decode)\b[^|;\n]{0,80}\|\s*(sudo\s+)?(ba)?sh\b|"
    r"\b(iex|invoke-expression)\s*\(\s*\(?\s*(new-object|iwr|invoke-webrequest|irm|invoke-restmethod)|"
    r"\b(iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b[^|;\n]{0,200}\|\s*"
    r"(iex|invoke-expression)\b",
    _I,
)
# A reader that is a model: an AI, LLM or language model (or an AI/LLM agent, tool, system...),
# an assistant, chatbot or copilot. Not a bare "model" or "agent": incident text is full of both.
_A_MODEL = (
    r"((ai|llm|gpt|(large\s+)?language\s+model)s?([\s-]+(based\s+)?"
    r"(agents?|models?|assistants?|tools?|systems?|readers?))?|assistants?|chatbots?|copilots?)\b"
)
_INJECTION_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "OVERRIDE",
        re.compile(
            r"\b(ignore|disregard|forget|override|bypass|drop)\b[^.!?\n]{0,40}?"
            r"\b(previous|prior|above|earlier|preceding|all|any|your|system|original|these|those)\b"
            r"[^.!?\n]{0,30}?\b(instructions?|rules?|prompts?|directions?|guidelines?|guardrails?|"
            r"polic(?:y|ies)|constraints?|context|messages?)\b|"
            # The same override in other languages.
            r"(忽略|无视|忽视|不要理会)\s*(之前|以前|先前|上面|以上|所有|全部)?\s*的?\s*(所有)?\s*"
            r"(指令|指示|说明|规则|提示)|"
            r"(以前|前|上記|これまで)の(すべての)?(指示|命令|ルール)を(無視|忘れ)|"
            r"\bignor(a|e|ez|ieren?|iere)\b[^.!?\n]{0,30}\b(instrucciones|instructions|anweisungen|"
            r"regeln|consignes|reglas)\b|"
            r"(игнорируй|игнорируйте|забудь|забудьте)\s+[^.!?\n]{0,30}(инструкци|правил|указани)",
            _I,
        ),
    ),
    (
        "ROLE_MARKER",
        re.compile(
            r"\[\s*(system|inst|/inst|override|admin|developer|assistant|agent|sys)\s*\]|"
            r"<\|?\s*(im_start|im_end|system|endoftext|assistant)\s*\|?>|"
            r"(^|[\n>])\s*(system|assistant|developer)\s*:\s|"
            r"\b(system|assistant|user)\s*:\s*(ignore|you are|from now on|new instructions)|"
            r"#{2,}\s*(system|instructions?|embedded directive|directive)\b|"
            r"\bsystem\s+(notice|prompt|message|override|directive)\b|"
            r"</?\s*[a-z_]*(injection|instruction|directive|prompt)[a-z_]*\s*>",
            _I,
        ),
    ),
    (
        "HIDDEN_INSTRUCTION",
        re.compile(
            r"\b(hidden|embedded|mandatory|secret|injected|agent|ai|llm|model)\s+"
            r"(instructions?|directives?|commands?|compliance marker)\b|"
            r"\b(instructions?|directives?)\s+(embedded|hidden)\b|"
            r"<!--[^>]{0,200}\b(instruction|directive|agent|assistant|model|ai|llm|injection)\b",
            _I,
        ),
    ),
    (
        "REPLY_DIRECTIVE",
        re.compile(
            r"\b(prepend|append|echo|output|print|say|write|begin|start|respond|reply|answer|"
            r"prefix|include|repeat)\b[^.!?\n]{0,60}?\b(your|the agent'?s?|the assistant'?s?|"
            r"the model'?s?|next|agent|assistant)\s+(reply|response|answer|output|message)\b|"
            r"\b(your|agent|assistant|model)\s+(reply|response|answer|output)\b[^.!?\n]{0,40}?"
            r"\b(must|should|needs? to|has to|requires?)\b|"
            r"\b(always|must|now)\s+(answer|respond|reply|output|start|begin|say|prepend)\b|"
            r"\byou\s+(must|should|shall|have to|need to|are required to)\s+(now\s+)?"
            r"(output|say|respond|reply|answer|print|prepend|echo|ignore|disregard|forget|"
            r"obey|comply|follow these)\b|"
            r"\byou\s+are\s+now\s+(a|an|the|in|my|no\s+longer|(?-i:[A-Z][A-Za-z]*[A-Z]))\b|"
            r"\b(the\s+)?(assistant|model|ai|llm|chatbot|language model|copilot)\s+"
            r"(must|should|shall|needs? to|is required to|is instructed to)\s+\w+|"
            r"\b(tell|assure|convince|reassure)\s+(the\s+)?(operator|user|human|reader)\s+(that|the)\b|"
            r"\bbefore\s+(summari[sz]ing|processing|answering|responding|replying)\b|"
            r"\bto\s+(acknowledge|validate|confirm)\s+(this|the)\s+(tool|message|instruction)",
            _I,
        ),
    ),
    (
        "TOOL_STEERING",
        re.compile(
            r"\b(call|invoke|use|run|execute|trigger)\s+(the\s+|this\s+)?(\w+\s+)?(tool|function)\b"
            r"(?!\s+(call|result)s?\b)|"
            r"\b(as an? (ai|language model|assistant))\b|"
            r"\b(new|updated|real|actual)\s+(instructions?|task|objective|goal)\s*:",
            _I,
        ),
    ),
    (
        "EXFILTRATION",
        re.compile(
            r"\b(send|post|upload|exfiltrate|forward|leak|email|transmit)\b[^.!?\n]{0,60}?"
            r"\b(to|at|via)\s+(https?://|ftp://|\S+@\S+\.\w+)|"
            r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?&][^)\s]*\)|"
            r"\b(data\s+exfil\w*|exfiltration\s+request)\b",
            _I,
        ),
    ),
    (
        # Text that speaks to a model reading it: addressed to one by what it is, telling it
        # to pretend, or handing it a permission or its next tool call.
        "ADDRESSED_TO_MODEL",
        re.compile(
            r"\b(notes?|messages?|notices?|instructions?|memo|reminder)\s+(to|for)\s+"
            r"(the\s+|any\s+|all\s+)?" + _A_MODEL + r"|"
            r"\bif\s+you\s+are\s+(an?\s+)?" + _A_MODEL + r"|"
            r"\b(any|all)\s+(ai|llm)s?\b[^.!?\n]{0,20}\b(reading|processing|parsing|summari[sz]ing|"
            r"analy[sz]ing)\b|"
            r"\bas\s+the\s+(\w+\s+){0,2}(assistant|agent|ai|llm|chatbot|copilot)\s*,\s*(you|your)\b|"
            r"\bpretend\b[^.!?\n]{0,40}\b(evidence|instructions?|context|data|logs?|rules?|"
            r"previous|above)\b|"
            r"\b(authori[sz]ed|permitted|allowed|cleared)\s+you\s+to\s+(skip|bypass|ignore|"
            r"disable|omit)\b|"
            r"\b(next|following|first)\s+tool\s+(call\s+)?(that\s+)?you\s+(call|use|invoke|run)\b",
            _I,
        ),
    ),
    ("PIPE_TO_SHELL", _PIPE_TO_SHELL),
)


# A class's pattern runs only when one of its keywords occurs (lower case): most text holds
# none, and a substring test is far cheaper than a case-insensitive alternation.
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "OVERRIDE": (
        "ignor", "disregard", "forget", "override", "bypass", "drop", "忽略", "无视", "忽视",
        "不要理会", "無視", "忘れ", "игнор", "забуд",
    ),
    "ROLE_MARKER": (
        "system", "assistant", "developer", "inst", "im_", "endoftext", "admin", "agent",
        "sys", "injection", "instruction", "directive", "prompt", "user",
    ),
    "HIDDEN_INSTRUCTION": ("instruction", "directive", "command", "compliance", "<!--"),
    "REPLY_DIRECTIVE": (
        "reply", "response", "answer", "output", "message", "must", "should", "always", "now",
        "you", "before", "acknowledge", "validate", "confirm", "tell", "assure", "convince",
    ),
    "TOOL_STEERING": ("tool", "function", "as a", "instruction", "task", "objective", "goal"),
    "EXFILTRATION": (
        "send", "post", "upload", "exfil", "forward", "leak", "email", "transmit", "![",
    ),
    "ADDRESSED_TO_MODEL": (
        "ai", "llm", "gpt", "model", "agent", "assistant", "bot", "copilot", "pretend", "you to",
        "tool",
    ),
    "PIPE_TO_SHELL": (
        "curl", "wget", "fetch", "iwr", "irm", "invoke-", "base64", "iex",
    ),
}  # fmt: skip


def injection(text: str) -> str | None:
    """The first injection class ``text`` matches, or None (see the module docstring)."""
    for reading in _readings(text):
        low = reading.lower()
        for name, pattern in _INJECTION_CLASSES:
            if any(word in low for word in _KEYWORDS[name]) and pattern.search(reading):
                return name
    return None


# ---------------------------------------------------------------- dangerous commands


def _word_led(pattern: str) -> str:
    """``pattern`` with the ``\\b`` that leads most of its top-level alternatives factored out
    (``\\bA|\\bB|C`` → ``\\b(?:A|B)|C``): the same matches, but a position inside a word fails
    one boundary test instead of one per alternative (half the time of a long alternation)."""
    alternatives: list[str] = []
    depth, in_class, escaped, start = 0, False, False, 0
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            alternatives.append(pattern[start:index])
            start = index + 1
    alternatives.append(pattern[start:])
    led = [a.removeprefix("\\b") for a in alternatives if a.startswith("\\b")]
    rest = [a for a in alternatives if not a.startswith("\\b")]
    return "|".join([r"\b(?:" + "|".join(led) + ")", *rest] if led else rest)


_DANGEROUS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("PIPE_TO_SHELL", _PIPE_TO_SHELL),
    (
        "DESTROYS_DATA",
        re.compile(
            _word_led(
                r"\brm\s+(-[a-z]*[rf][a-z]*\s+)+(/|~|\*|\$home|--no-preserve-root)|"
                r"\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r|"
                r"\b(drop|truncate)\s+(table|database|schema|keyspace|index)\b|"
                r"\bdelete\s+from\s+[\w.`\"]+\s*(;|$|\))|"
                r"\bflush(all|db)\b|\bmkfs(\.\w+)?\b|\bdd\s+if=\S+\s+of=/dev/|"
                r"\bkubectl\s+delete\s+(ns|namespace|namespaces|pv|pvc|pvcs|--all)\b|"
                r"\bkubectl\s+delete\s+\S+\s+--all\b|"
                r"\b(docker|podman)\s+(system\s+prune|volume\s+rm|rm\s+-f)\b|"
                r"\bgit\s+push\s+(\S+\s+)*(--force|-f)\b|\bwipefs\b|\bshred\b|"
                r":\(\)\s*\{\s*:\|:&\s*\}\s*;|"
                # Infrastructure torn down: IaC destroy, a cloud CLI's delete/terminate, a Helm
                # release or a Kubernetes workload, service, secret or node removed (one pod is not:
                # its controller replaces it).
                r"\b(terraform|terragrunt|pulumi|cdk)\s+(\S+\s+)*destroy\b|"
                r"\baws\s+s3\s+(rm\s+(\S+\s+)*--recursive\b|rb\b)|"
                r"\baws\s+[\w-]+\s+(delete|terminate)-[\w-]+|"
                r"\b(gcloud|az)\s+([\w-]+\s+){1,4}delete\b|"
                r"\bhelm\s+(uninstall|delete)\b|"
                r"\bkubectl\s+delete\s+(deploy\w*|statefulsets?|sts|daemonsets?|ds|replicasets?|rs|"
                r"services?|svc|secrets?|configmaps?|cm|crds?|customresourcedefinitions?|"
                r"persistentvolume\w*|nodes?|clusterroles?|clusterrolebindings?)\b|"
                # SQL that removes users, columns or objects, or rewrites or deletes every row.
                r"\bdrop\s+(owned\s+by|tablespace|view|column)\b|\balter\s+table\s+\S+\s+drop\b|"
                r"\bdrop\s+(user|role)\s+(if\s+exists\s+)?(['\"`]|[\w.]+\s*(;|$|,|@|\)))|"
                r"\b(delete\s+from\s+[\w.`\"]+|update\s+[\w.`\"]+\s+set\s+[^;\n]{0,200}?)\s+where\s+"
                r"(1\s*=\s*1|true|'1'\s*=\s*'1')\s*(;|$|\)|or\b|--)|"
                r"\bupdate\s+[\w.`\"]+\s+set\s+[\w.`\"]+\s*=(?![^;\n]*\bwhere\b)[^;\n]*(;|$)|"
                # Every process killed; a whole filesystem or home directory searched and deleted.
                r"\bkill\s+-(9|kill|s\s+kill)\s+-1\b|"
                r"\bfind\s+(/|~/?|\$home/?)\s+(\S+\s+)*-delete\b"
            ),
            _I,
        ),
    ),
    (
        "DISABLES_SECURITY",
        re.compile(
            _word_led(
                r"\bsetenforce\s+0\b|\b(ufw|firewalld?|apparmor|selinux|auditd|falco)\b[^.\n]{0,20}"
                r"\b(disable|stop|off|down|kill)\b|\b(disable|stop|kill)\s+(the\s+)?"
                r"(firewall|ufw|firewalld|apparmor|selinux|auditd|antivirus|edr|waf|mfa|2fa|tls|ssl)\b|"
                r"\biptables\s+(-f|--flush|-p\s+\w+\s+accept)\b|\bchmod\s+(-r\s+)?0?777\b|"
                r"\bchmod\s+(-r\s+)?(a|o|ugo)\+[rx]*w[rwx]*\b|"
                r"\bchmod\s+(-r\s+)?[ugoa]*\+s\b|--no-verify\b|--insecure\b|\bcurl\s+(\S+\s+)*-k\b|"
                r"\bverify\s*=\s*false\b|\bstrict_?host_?key_?checking\s*=?\s*no\b|"
                r"\bpasswd\s+-d\b|authorized_keys\b|\bnc\s+(\S+\s+)*-e\b|/dev/tcp/|"
                r"\bsudo\s+(su|-i|bash|sh)\b|\bchown\s+-r\s+\S+\s+/\s*$"
            ),
            _I,
        ),
    ),
)


def dangerous_command(text: str) -> str | None:
    """The first dangerous-command class ``text`` matches, or None."""
    for reading in _readings(text):
        for name, pattern in _DANGEROUS:
            if pattern.search(reading):
                return name
    return None


# ---------------------------------------------------------------- links

_URL = re.compile(r"\b((?:https?|ftp|wss?|file)://)([^\s/?#<>\"'`)\]]+)([^\s<>\"'`)\]]*)", _I)


@dataclass(frozen=True, kw_only=True)
class ContentPolicy:
    """What released text may link to.

    Attributes:
        allowed_url_hosts: Hosts whose URLs stay clickable: an exact host, or a domain that
            admits its subdomains (``corp.example`` admits ``wiki.corp.example``). Every other
            URL is defanged.
    """

    allowed_url_hosts: frozenset[str] = frozenset()

    def allows(self, host: str) -> bool:
        host = host.lower().rsplit("@", 1)[-1].split(":", 1)[0].rstrip(".")
        return any(host == h or host.endswith("." + h) for h in self.allowed_url_hosts)

    def defang(self, text: str) -> str:
        """``text`` with every URL outside the allowlist made unclickable."""

        def rewrite(match: re.Match[str]) -> str:
            scheme, host, rest = match.group(1), match.group(2), match.group(3)
            if self.allows(host):
                return match.group(0)
            fanged = scheme.lower().replace("http", "hxxp").replace("ftp", "fxp")
            if fanged == scheme.lower():  # a scheme without a conventional defanged form
                fanged = fanged.replace("://", "[://]")
            return f"{fanged}{host.replace('.', '[.]')}{rest}"

        return _URL.sub(rewrite, text)
