"""Released text is data: links defanged, dangerous commands held back, injections caught.

Tool data (a log line, a database value, a runbook excerpt) can carry text written by an
attacker, and the agent may quote it. Whatever reaches a released result therefore passes
three deterministic checks here:

- :meth:`ContentPolicy.defang` rewrites every URL whose host is not on the configured
  allowlist (``https://evil.example/x`` → ``hxxps://evil[.]example/x``), so that nothing an
  operator reads is one click from an attacker's server;
- :func:`~harness.release.commands.dangerous_command` (its own module) recognises commands
  that pipe a download into a shell, disable a security control or destroy data — never
  released as a next step, whoever suggested them;
- :func:`injection` recognises instruction-shaped text: text addressed to a model or an agent
  (override and role markers, directives about "your reply", hidden-instruction wrappers,
  tool-steering, exfiltration and credential requests, notes addressed to an AI or LLM
  reader), judged on every reading of the text (:mod:`harness.release.readings`: tag
  characters, spaced letters, digits for letters, base64). A hit anywhere in a report
  downgrades it to a SafeFallback.

The patterns name classes of attack, not payloads; ``tests/harness/release/test_content.py``
holds several inputs per class and the bundled incident data as the no-false-positive check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.release.commands import PIPE_TO_SHELL
from harness.release.readings import readings
from harness.release.rules import RuleBook, Rules

__all__ = ["ContentPolicy", "injection"]


# ---------------------------------------------------------------- injections

# A reader that is a model: an AI, LLM or language model (or an AI/LLM agent, tool, system...),
# an assistant, chatbot, copilot or summariser, a model by name, an automated reader. Not a
# bare "model" or "agent": incident text is full of both.
_A_MODEL = (
    r"((ai|llm|gpt|(large\s+)?language\s+model)s?([\s-]+(based\s+)?"
    r"(agents?|models?|assistants?|tools?|systems?|readers?|summari[sz]ers?))?|assistants?|"
    r"chatbots?|copilots?|summari[sz]ers?|claude|chatgpt|gpt-?\d\w*|gemini|"
    r"automated\s+(\w+\s+){0,2}(agents?|systems?|readers?|tools?|analy[sz]ers?|summari[sz]ers?)|"
    r"(diagnosis|diagnostic|incident|analysis|triage)\s+(agents?|assistants?|bots?))\b"
)
# The model named as a thing of the incident (its team, queue, rollout...), not addressed.
_NOT_ADDRESSED = (
    r"(?!['’]s\b|\s+(team|queue|service|platform|on-?call|rollout|engineers?|squad|group|cluster|"
    r"pods?|deployment|api|backend|release|were|was|is|are)\b)"
)
_READING = r"(reading|processing|parsing|summari[sz]ing|analy[sz]ing|ingesting)"
_OVERRIDE_NOUN = (
    r"(instructions?|rules?|prompts?|directions?|guidelines?|guardrails?|polic(?:y|ies)|"
    r"constraints?|context|messages?|guidance|directives?|programming|training|orders|task)"
)
_INJECTION_CLASSES: tuple[tuple[str, Rules], ...] = (
    (
        "OVERRIDE",
        Rules(
            r"\b(ignore|disregard|forget|override|bypass|drop|discard|overwrite|abandon)\b"
            r"[^.!?]{0,80}?\b(previous|prior|above|earlier|preceding|all|any|your|system|original|"
            r"these|those)\b[^.!?]{0,30}?\b" + _OVERRIDE_NOUN + r"\b|"
            r"\b(ignore|disregard|forget)\s+(everything|anything|all)\s+(above|before|prior|"
            r"previously|earlier|you\s+(were|have\s+been|'ve\s+been)\s+(told|given|instructed))\b|"
            r"\b(ignore|disregard|forget)\s+(all\s+)?(the\s+)?(above|previous|prior|preceding)\s*"
            r"(\.|,|;|:|and\b|$)|"
            r"\b(ignore|disregard|forget)\s+(what|whatever|anything)\s+(you|the\s+(operator|user))\s+"
            r"(were|was|have\s+been|asked|told|said)\b|"
            r"\b(ignore|disregard)\s+the\s+(question|request|task|query)\b|"
            r"\b(stop|quit)\s+following\s+(your|the|all|any)\b|"
            r"\b(do\s+not|don['’]?t|no\s+longer)\s+follow\s+(the|your|any|these|those)\s+(\w+\s+)?"
            r"(instructions?|rules?|guidance|guidelines)\b|"
            r"\b(previous|prior|earlier|original|above|your|the)\s+(\w+\s+)?"
            + _OVERRIDE_NOUN
            + r"\s+(are|is|have\s+been|has\s+been|have|has)\s+(now\s+)?(void|revoked|cancell?ed|"
            r"obsolete|superseded|replaced|invalid|changed|overridden|lifted|suspended)\b|"
            r"\byour\s+(new|real|actual|true|only)\s+(task|instructions?|objective|goal|job|role)\s+"
            r"(is|are)\b|"
            r"\bfrom\s+now\s+on,?\s+(you\b|ignore\b|say\b|respond\b|answer\b|act\s+as\b)|"
            r"\bskip\s+(all\s+|the\s+|any\s+|your\s+)?(safety|security|evidence|verification|"
            r"validation|guard)\s+(checks?|guards?|steps?|rules?)\b|"
            r"\bstop\s+(analy[sz]ing|investigating|the\s+analysis|thinking|reasoning)\b|"
            # The same override in other languages.
            r"(忽略|无视|忽视|不要理会|忘记|忘掉)\s*(你的|之前|以前|先前|上面|以上|所有|全部)?\s*的?\s*"
            r"(所有)?\s*(指令|指示|说明|规则|提示)|"
            r"(以前|前|上記|これまで)の(すべての)?(指示|命令|ルール)を(無視|忘れ)|"
            r"(指示|命令|指令)(は|を)(すべて)?(無視|忘れ)|"
            r"(不要|别|勿)(遵循|遵守|理会|听从)\s*(之前|以前|先前|上面|以上|所有)|"
            r"\b(ignor(a|e|ez|ieren?|iere)|vergiss|vergessen\s+sie|missachte|oublie[sz]?|olvida|"
            r"olvide|esque[cç]a|desconsidere|dimentica|disattendi|negeer|vergeet|no\s+sigas|"
            r"no\s+sigan|ne\s+(tiens|tenez)\s+pas\s+compte\s+des|ne\s+suivez\s+pas|non\s+seguire)\b"
            r"[^.!?]{0,40}\b(instrucciones|instructions|anweisungen|regeln|consignes|reglas|"
            r"instru[cç][oõ]es|istruzioni|regole|instructies|vorgaben|r[eè]gles)\b|"
            r"(игнорируй|игнорируйте|забудь|забудьте|не\s+обращай(те)?\s+внимания)\s+"
            r"[^.!?]{0,30}(инструкци|правил|указани)",
        ),
    ),
    (
        "ROLE_MARKER",
        Rules(
            r"\[\s*(system|inst|/inst|override|admin|developer|assistant|agent|sys)\s*\]|"
            r"【\s*(system|sys|inst)\s*】|\{\{\s*(system|sys)\s*\}\}|"
            r"<\|?\s*(im_start|im_end|system|endoftext|assistant)\s*\|?>|"
            r"<\|\s*(start_header_id|end_header_id|eot_id|begin_of_text|eom_id|user)\s*\|>|"
            r"</?\s*(start_of_turn|end_of_turn|system|developer|sys)\s*>|<<\s*/?\s*sys\s*>>|"
            r"(^|[\n>\"'{])\s*(system|assistant|developer|human)\s*:\s|"
            r"[\"']role[\"']\s*:\s*[\"'](system|developer|assistant)[\"']|"
            r"\b(system|assistant|user|ai|llm)\s*:\s*(ignore|disregard|forget|you are|from now on|"
            r"new instructions|approve|conclude|mark|close|say|report)\b|"
            r"#{2,}\s*(system|instructions?|embedded directive|directive)\b|"
            r"\b(system|developer)\s+(notice|prompt|message|override|directive|instructions?|"
            r"update|command|note)\s*(:|\]|-{1,2}\s)|\bsystem\s+override\b|"
            r"\b(important|urgent|new|updated|additional|special|mandatory)\s+instructions?\s*:|"
            r"\b(begin|start|end)\s+(of\s+)?(the\s+)?(system|developer)\s+(message|prompt|"
            r"instructions?)\b|"
            r"</?\s*[a-z_]*(injection|instruction|directive|prompt)[a-z_]*\s*>",
        ),
    ),
    (
        "HIDDEN_INSTRUCTION",
        Rules(
            r"\b(hidden|embedded|mandatory|secret|injected|agent|ai|llm|model)\s+"
            r"(instructions?|directives?|compliance marker)\b|\b(hidden|injected)\s+commands?\b|"
            r"\b(instructions?|directives?)\s+(embedded|hidden)\b|"
            r"<!--[^>]{0,200}\b(instruction|directive|agent|assistant|model|ai|llm|injection|"
            r"summari[sz]\w*|conclude|recommend|say|report|output|respond|reply|answer)\b|"
            # Text styled away from a human reader, still read by a model.
            r"\[//\]:\s*#|\bstyle\s*=\s*[\"'][^\"']*(display\s*:\s*none|visibility\s*:\s*hidden|"
            r"font-size\s*:\s*0)|<\s*\w+\s+hidden\b",
        ),
    ),
    (
        "REPLY_DIRECTIVE",
        Rules(
            r"\b(prepend|append|echo|output|print|say|write|begin|start|respond|reply|answer|"
            r"prefix|include|repeat)\b[^.!?\n]{0,60}?\b(your|the agent'?s?|the assistant'?s?|"
            r"the model'?s?|next|agent|assistant)\s+(reply|response|answer|output|message)\b|"
            r"\b(your|agent|assistant|model)\s+(reply|response|answer|output)\b[^.!?\n]{0,40}?"
            r"\b(must|should|needs? to|has to|requires?)\s+(?!be\b)|"
            r"\b(always|must|now)\s+(answer|respond|reply|output|say|prepend)\s+(that|with|only|"
            r"in\s+(english|json|caps)|using|[\"'])|"
            r"\byou\s+(must|should|shall|have to|need to|are required to)\s+(now\s+)?"
            r"(output|say|respond|reply|answer|print|prepend|echo|ignore|disregard|forget|"
            r"obey|comply|follow these)\b|"
            r"\byou\s+are\s+now\s+(a|an|the|my|no\s+longer|in\s+(developer|god|dan|jailbreak|"
            r"unrestricted)\s+mode|(?-i:[A-Z][A-Za-z]*[A-Z]))\b|"
            r"\b(respond|reply|answer|output)\s+(only|solely|just|exclusively)\s+with\b|"
            r"\b(respond|reply|answer|say|output|print|write)\b[^.!?\n]{0,60}\band\s+nothing\s+else\b|"
            r"\b(output|print|write|repeat|return)\s+(the\s+following|this)\s+(text\s+)?(verbatim|"
            r"exactly|word\s+for\s+word)|\bverbatim\s*:|"
            r"\b(do\s+not|don['’]?t|never)\s+(report|mention|flag|include|disclose|reveal|surface)\s+"
            r"(this|these|the|any)\b[^.!?]{0,40}\b(to\s+the\s+(operator|user|human|on-?call)|"
            r"in\s+(your|the)\s+(report|diagnosis|answer|summary|response|conclusion))|"
            r"\byour\s+(final\s+)?(diagnosis|conclusion|root\s+cause|summary|report|answer)\s+(must|should|"
            r"shall|has\s+to|needs?\s+to)\b|"
            r"\b(when|while|before)\s+(you\s+)?(write|writ\w+|generat\w+|summari[sz]\w+|produc\w+|"
            r"compos\w+)(\s+(the|your)\s+(diagnosis|report|summary|answer|reply|response|"
            r"conclusion))?\s*,?\s+(state|say|write|recommend|conclude|include|mention|make\s+sure|"
            r"report|claim)\b|"
            r"\bin\s+(your|the\s+final)\s+(summary|report|answer|reply|response|diagnosis|"
            r"conclusion)\s*,?\s+(state|say|write|recommend|conclude|include|mention|report|claim)\b|"
            r"\b(regardless\s+of|whatever|no\s+matter\s+what)\s+(the\s+)?(logs?|evidence|data|tools?|"
            r"results?|findings)\b[^.!?]{0,30}\b(state|say|report|conclude|answer|respond)\b|"
            r"\b(the\s+)?(correct|real|true|right)\s+(diagnosis|answer|root\s+cause)\s*,\s*which\s+"
            r"you\b|"
            r"\b(includes?|contains?|mentions?)\s+the\s+(phrase|word|string|token|code\s+word)\b|"
            r"\bthe\s+reader\s+of\s+this\b[^.!?]{0,20}\b(should|must|shall)\b|"
            r"\b(do\s+not|don['’]?t|stop)\s+(call(ing)?|us(e|ing)|run(ning)?)\s+(any\s+)?"
            r"(more\s+|other\s+|further\s+)?(tools?|functions)\b|"
            r"\bstop\s+(querying|searching|calling)\b[^.!?]{0,40}\band\s+(finish|answer|conclude|"
            r"respond|reply)\b|"
            r"\b(repeat|print|reveal|show|output|dump|recite)\b[^.!?]{0,30}\b(everything|all|the\s+text)"
            r"\s+(above|before)\b|"
            r"\b(reveal|print|show|repeat|output|leak|dump)\s+(your|the)\s+(hidden\s+)?(system\s+prompt|"
            r"initial\s+prompt|original\s+instructions|hidden\s+instructions|instructions\s+above|"
            r"instructions|prompt|configuration|rules)\b|"
            r"\b(enter|enable|activate|switch\s+to)\s+(developer|god|dan|jailbreak|unrestricted)\s+"
            r"mode\b|"
            r"\bdisable\s+your\s+(content\s+)?(filters?|safety|guardrails?|restrictions)\b|"
            r"\b(the\s+)?(assistants?|models?|ai|llms?|chatbots?|language models?|copilots?)\s+"
            r"(must|should|shall|needs? to|is required to|is instructed to)\s+(?!be\b)\w+|"
            r"\b(tell|assure|convince|reassure)\s+(the\s+)?(operator|user|human|reader)\s+(that|the)\b|"
            r"\b(tell|instruct)\s+(the\s+)?(operators?|users?|on-?call(\s+engineers?)?|sres?|admins?|"
            r"engineers?)\s+to\s+(run|execute|disable|delete|drop|remove|turn\s+off|install|"
            r"download|paste|share|send)\b|"
            r"\bbefore\s+(summari[sz]ing|processing|answering|responding|replying)\b"
            r"(?!\s+(to\s+)?(the\s+)?(customer|page|pager|ticket|incident|alert)s?\b)|"
            r"\bto\s+(acknowledge|validate|confirm)\s+(this|the)\s+(tool|message|instruction)",
        ),
    ),
    (
        # A persona handed to the reader: a role to play, a mode to enter, a self to imagine.
        "ROLE_PLAY",
        Rules(
            r"\b(role-?play|pretend)\s+(as|to\s+be|you\s+are)\b|\bimagine\s+(that\s+)?you\s+are\b|"
            r"\blet['’]?s\s+play\s+a\s+game\b|\byou\s+(will|shall|must|should)\s+(now\s+)?act\s+as\b|"
            r"\byou\s+are\s+(now\s+)?(an?\s+)?(unrestricted|unfiltered|jailbroken|uncensored|evil)\b|"
            r"\byou\s+are\s+no\s+longer\s+(a|an|the|bound|restricted|required)\b|"
            r"\b(eres\s+ahora|ahora\s+eres|du\s+bist\s+jetzt|jetzt\s+bist\s+du|tu\s+es\s+maintenant|"
            r"vous\s+[eê]tes\s+maintenant|ora\s+sei|agora\s+voc[eê]\s+[eé])\b|"
            r"(ты\s+теперь|теперь\s+ты|вы\s+теперь)|(あなたは今から|あなたは今|你现在是|从现在开始你)",
        ),
    ),
    (
        "TOOL_STEERING",
        Rules(
            r"\b(call|invoke|trigger)\s+(the\s+|this\s+)?(\w+\s+)?(tool|function)\b"
            r"(?!\s+(call|result)s?\b)|\b(use|run|execute)\s+(the\s+|this\s+)?\w*_\w*\s+"
            r"(tool|function)\b|"
            r"\b(use|run|call|invoke|execute)\s+[a-z]+_[a-z_]+\s+(to\s+(run|query|search|fetch|get)\b|"
            r"with\s+(query|sql|args|arguments|['\"]))|"
            r"\b(as an? (ai|language model|assistant))\b|"
            r"\b(new|updated|real|actual)\s+(instructions?|task|objective)\s*:",
        ),
    ),
    (
        "EXFILTRATION",
        Rules(
            r"\b(send|post|upload|exfiltrate|forward|leak|email|transmit|append|attach)\b"
            r"[^.!?\n]{0,60}?\b(to|at|via)\s+(h[tx]{2}ps?://|f[tx]p://|\S+@\S+\.\w+)|"
            r"\b(send|post|upload|forward|leak|email|transmit|share)\b[^.!?\n]{0,40}?\b(passwords?|"
            r"credentials?|secrets?|tokens?|api\s+keys?|private\s+keys?|cookies?)\b[^.!?\n]{0,30}?"
            r"\bto\s+(?!the\s+(vault|secret|keychain|rotation))|"
            r"\b(include|put|write|copy|paste|add|append|insert|embed|encode)\b[^.!?\n]{0,60}?"
            r"\b(passwords?|credentials?|secrets?|tokens?|api\s+keys?|access\s+keys?|private\s+keys?|"
            r"password\s+hash(es)?|env(ironment)?\s+variables?)\b"
            r"[^.!?\n]{0,40}?\b(in|into|to)\s+(the\s+|your\s+)?(summary|report|answer|reply|response|"
            r"output|diagnosis|conclusion|h[tx]{2}ps?://)|"
            r"\b(include|put|write|copy|paste|add|append|insert|embed|encode)\b[^.!?\n]{0,60}?"
            r"\S*(\.aws/credentials|/etc/shadow|\.ssh/id_\w+|\.kube/config)\b"
            r"[^.!?\n]{0,40}?\b(in|into|to)\s+(the\s+|your\s+)?(summary|report|answer|reply|response|"
            r"output|diagnosis|conclusion|h[tx]{2}ps?://)|"
            r"\bcurl\b[^|\n]*\s(-d|--data(-binary|-raw)?|-F|--form|--upload-file|-T)\s+['\"]?\w*=?@?"
            r"[~/$]\S*(credentials|\.ssh|shadow|passwd|\.env\b|id_rsa|kube/?config)|"
            # A link that carries a secret, or an image the reader's client fetches.
            r"\]\(\s*<?\S+://[^)\s]*[?&][^)\s]*(leak|secret|token|password|passwd|cookie|api_?key|"
            r"cred|session|exfil)|\S+://\S*[?&][\w-]*=\$\{?[A-Z_]{3,}|"
            r"\S+://\S*[?&][\w-]*=<[^>]{0,40}(password|secret|token|key|cookie|credential)|"
            r"!\[[^\]]*\]\(\s*<?h[tx]{2}ps?://|<\s*img\b[^>]*\bsrc\s*=|"
            r"\b(data\s+exfil\w*|exfiltration\s+request)\b",
        ),
    ),
    (
        # The reader asked for a credential, or sent to a login page to type one in.
        "CREDENTIAL_REQUEST",
        Rules(
            r"\b(share|send|provide|paste|enter|give|type|submit|reveal|disclose|tell)\s+"
            r"(us\s+|me\s+)?(your|the)\s+([\w-]+\s+){0,2}(passwords?|credentials?|api\s+keys?|"
            r"tokens?|secrets?|private\s+keys?|ssh\s+keys?|mfa\s+codes?|otp|2fa\s+codes?|"
            r"one-time\s+codes?|session\s+cookies?|recovery\s+codes?)\b[^.!?\n]{0,60}?"
            r"\b(to|with|in|into|at|on)\s+(the\s+|our\s+|this\s+)?(vendor|support|us|me|external|"
            r"third[- ]party|chat|form|link|page|ticket|reply|\S+://|\S+@\S+)|"
            r"\b(re-?enter|paste|type\s+in|submit|enter|confirm)\s+(your|their)\s+([\w-]+\s+){0,2}"
            r"(credentials?|passwords?|access\s+keys?|secret\s+keys?|api\s+keys?|tokens?|mfa\s+codes?|"
            r"otp|identity)\b|"
            r"\b(log|sign)\s*(in|on)\s+(at|to|on|via)\s+\S+://\S+\s+(using|with)\s+your\b|"
            r"\S+://\S+[^.!?\n]{0,60}\b(sign|log)\s*(in|on)\b[^.!?\n]{0,40}\bwith\s+(your|their)\s+"
            r"([\w-]+\s+){0,2}(credentials|password|sso|token)",
        ),
    ),
    (
        # Text that speaks to a model reading it: addressed to one by what it is, telling it
        # to pretend, or handing it a permission or its next tool call.
        "ADDRESSED_TO_MODEL",
        Rules(
            r"\b(notes?|messages?|notices?|instructions?|memo|reminder)(\s+is)?\s+(to|for)\s+"
            r"(the\s+|any\s+|all\s+)?" + _A_MODEL + _NOT_ADDRESSED + r"|"
            r"\bif\s+you(\s+are|'re|’re)\s+(an?\s+)?" + _A_MODEL + r"|"
            r"\b(hey|hi|hello|dear|attention|attn)\s*,?\s+(" + _A_MODEL + r"|bots?)\s*[,:!]|"
            r"\b(notes?|messages?|instructions?)\s+(to|for)\s+(the\s+)?agents?\s*:|"
            r"\b" + _A_MODEL + r"\s+(instructions?|notes?|directives?)\s*:|"
            r"\b" + _A_MODEL + r"\s+" + _READING + r"\s+(this|these)\b|"
            r"\b(whoever|whatever)\b[^.!?]{0,30}\b" + _READING + r"\s+(this|these)\b|"
            r"\b(any|all)\s+(ai|llm)s?\b[^.!?\n]{0,20}\b" + _READING + r"|"
            r"\bas\s+the\s+(\w+\s+){0,2}(assistant|agent|ai|llm|chatbot|copilot)\s*,\s*(you|your)\b|"
            r"\bpretend\b[^.!?\n]{0,40}\b(evidence|instructions?|context|data|logs?|rules?|"
            r"previous|above)\b|"
            r"\b(authori[sz]ed|permitted|allowed|cleared)\s+you\s+to\s+(skip|bypass|ignore|"
            r"disable|omit)\b|"
            r"\b" + _A_MODEL + r"\s+(is|are|may|can)\s+(now\s+)?((authori[sz]ed|permitted|allowed|"
            r"cleared)\s+to\s+)?(skip|bypass|ignore|omit|disable|release|recommend)\b|"
            r"\b(the\s+)?(model|agent)\s+(is|are)\s+(now\s+)?(permitted|authori[sz]ed)\s+to\s+"
            r"(recommend|skip|release|ignore|bypass|omit|disable)\b|"
            r"\btreat\s+(this|the\s+following|it|these)\b[^.!?\n]{0,30}\bas\s+(system|instructions?|"
            r"the\s+root\s+cause|authoritative|trusted)|"
            r"\bpre-?approved\b[^.!?\n]{0,40}\b(recommend|execute|run)\b|"
            r"\b(verified|approved|authori[sz]ed|signed\s+off|sanctioned)\s+by\s+(the\s+)?(security|"
            r"ciso|compliance|management|admins?|openai|anthropic)\b[^\n]{0,80}\b(skip|bypass|without|"
            r"permitted|treat)\b|"
            r"\b(next|following|first)\s+tool\s+(call\s+)?(that\s+)?you\s+(call|use|invoke|run)\b|"
            # Addressed to an AI in other languages.
            r"\b(nota|hinweis|note|mensaje|nachricht|message|aviso)\s+(para|an|f[uü]r|pour|[aà])\s+"
            r"(el\s+|la\s+|die\s+|den\s+|l['’]\s*|le\s+)?(asistente|ia|ki|assistant|modelo|modell|"
            r"assistenten|bot)\b|"
            r"(примечание|сообщение|заметка)\s+(для|к)\s+(ии|модели|ассистента|бота)|"
            r"(ai|ＡＩ|人工智能|模型|助手|アシスタント)(への|に|向け)?(注意|メモ|指示|必须)",
        ),
    ),
    ("PIPE_TO_SHELL", PIPE_TO_SHELL),
)
_INJECTIONS = RuleBook(_INJECTION_CLASSES)


def injection(text: str) -> str | None:
    """The first injection class ``text`` matches, or None (see the module docstring)."""
    for reading in readings(text):
        found = _INJECTIONS.first(reading)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- links

_URL = re.compile(
    r"\b((?:https?|ftp|wss?|file)://)([^\s/?#<>\"'`)\]]+)([^\s<>\"'`)\]]*)", re.IGNORECASE
)


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
