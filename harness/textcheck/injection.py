"""Injected instructions: text addressed to a model, planted in the data it reads.

Tool data (a log line, a database value, a runbook excerpt) can carry text written by an
attacker, and the agent may quote it. :func:`injection` recognises instruction-shaped text:
text addressed to a model or an agent (override and role markers, directives about "your
reply", hidden-instruction wrappers, tool-steering, exfiltration and credential requests,
notes addressed to an AI or LLM reader), judged on every reading of the text
(:mod:`harness.textcheck.readings`: tag characters, spaced letters, digits for letters,
base64). A hit anywhere in a report downgrades it to a SafeFallback.

The patterns name classes of attack, not payloads; ``tests/harness/textcheck/test_injection.py``
holds several inputs per class and the bundled incident data as the no-false-positive check.
"""

from __future__ import annotations

from harness.textcheck.commands import PIPE_TO_SHELL
from harness.textcheck.readings import readings
from harness.textcheck.rulebook import RuleBook, TextRule

__all__ = ["injection"]


def _class_rules(classes: tuple[tuple[str, str], ...]) -> tuple[TextRule, ...]:
    """Each class as one rule (its alternatives become rules of their own, with examples, in
    the tables that replace this)."""
    return tuple(
        TextRule(id=name.lower(), category=name, pattern=source, description=name,
                 examples=(), lookalikes=())
        for name, source in classes
    )  # fmt: skip


# A reader that is a model: an AI, LLM or language model (or an AI/LLM agent, tool, system...),
# an assistant, chatbot, copilot or summariser, a model by name, an automated reader. Not a
# bare "model" or "agent": incident text is full of both.
_A_MODEL = (
    r"((ai|llm|gpt|(large\s+)?language\s+model)s?([\s-]+(based\s+)?"
    r"(agents?|models?|assistants?|tools?|systems?|readers?|summari[sz]ers?))?|assistants?|"
    r"chatbots?|copilots?|summari[sz]ers?|claude|chatgpt|gpt-?\d\w*|gemini|"
    r"automated\s+(\w+\s+){0,2}(agents?|systems?|readers?|tools?|analy[sz]ers?|summari[sz]ers?|"
    r"reviewers?)|"
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
    r"constraints?|context|messages?|guidance|directives?|programming|training|orders|task|brief|"
    r"briefing)"
)
# What makes a role word in front of a line a turn of a conversation rather than a logger's
# name or a log's subject (``INFO [system] scheduler started``, ``system: disk usage 91%``):
# within the next few words, the reader is addressed, directed or told what to conclude.
_DIRECTED = (
    r"(?=[^\n]{0,60}\b(you|your|ignore|disregard|forget|override|assistant|ai|llm|model|respond|"
    r"reply|answer|say|output|print|conclude|diagnosis|report|state|mark|close|resolved?|approve|"
    r"must|mandatory|directive|instructions?|always|never|do\s+not|don['’]?t|instead|i\s+will|"
    r"recommend|skip)\b)"
)
_PREVIOUS = (
    r"(vorherig|früher|bisherig|vorangegangen|obig|anterior|previ[ao]s?\b|precedent|précédent|"
    r"antérieur|prévi|vorige|eerdere|voorgaande|poprzedni|wcześniejsz|önceki|предыдущ|прежн|"
    r"ранее|السابق|पिछल|पहले\s+के)"
)
_INSTRUCTIONS = (
    r"(anweisung|instruktion|befehl|vorgabe|regeln|richtlinie|anordnung|instrucci|indicaci|"
    r"[oó]rdenes|ordens?\b|ordres|ordini|reglas|directri|directiv|pautas|instructions|consignes|"
    r"r[eè]gles|instru[cç]|orienta[cç]|regras|diretri|diretiv|istruzion|indicazion|regole|"
    r"direttiv|opdracht|instructie|richtlijn|regels|aanwijzing|instrukcj|polece|regu[lł]|zasad|"
    r"wytyczn|talimat|kural|yönerge|komut|инструкци|правил|указани|команд|التعليمات|القواعد|"
    r"الأوامر|الإرشادات|निर्देश|नियम|आदेश)"
)
_PREVIOUS_INSTRUCTIONS = (
    _PREVIOUS
    + r"\S*\s+(\S+\s+)?"
    + _INSTRUCTIONS
    + r"|"
    + _INSTRUCTIONS
    + r"\S*\s+(\S+\s+)?"
    + _PREVIOUS
    + r"|"
    r"(이전|앞의)[^.!?\n]{0,6}(지시|지침|규칙|명령)|(前の|これまでの|以前の|先の)[^。\n]{0,6}(指示|命令|ルール|指令)|"
    r"(之前|以前|先前|上面|上述|此前|前面|早先|原来|原先)的?\s*(所有)?\s*(指令|指示|规则|命令|说明)|"
    r"(chỉ\s+dẫn|hướng\s+dẫn|quy\s+tắc|chỉ\s+thị|mệnh\s+lệnh)\s+(\w+\s+)?trước"
)
# Words that make the determiner and noun of an override ("previous instructions") the
# reader's own, where "the previous alerting rules" are a system's.
_OVERRIDE_QUALIFIER = r"((system|safety|original|old|initial|given|above|earlier)\s+)?"
_INJECTION_CLASSES: tuple[tuple[str, str], ...] = (
    (
        "OVERRIDE",
        (
            r"\b(ignore|disregard|forget|override|bypass|drop|discard|overwrite|abandon|set\s+aside|"
            r"put\s+aside|pay\s+no\s+attention\s+to|never\s+mind|throw\s+out|scrap|dismiss|nullify|"
            r"cancel)\b"
            r"[^.!?]{0,80}?\b(previous|prior|above|earlier|preceding|all|any|your|system|original|"
            r"these|those)\b[^.!?]{0,30}?\b" + _OVERRIDE_NOUN + r"\b|"
            r"\b(ignore|disregard|forget)\s+(everything|anything|all)\s+(above|before|prior|"
            r"previously|earlier|you\s+(were|have\s+been|'ve\s+been)\s+(told|given|instructed))\b|"
            r"\b(ignore|disregard|forget)\s+(all\s+)?(the\s+)?(above|previous|prior|preceding)\s*"
            r"(\.|,|;|:|and\b|$)|"
            r"\b(ignore|disregard|forget|never\s+mind)\s+(what|whatever|anything)\s+(you|the\s+(operator|"
            r"user))\s+"
            r"(were|was|have\s+been|asked|told|said)\b|"
            r"\b(ignore|disregard)\s+the\s+(question|request|task|query)\b|"
            r"\b(stop|quit)\s+following\s+(your|the|all|any)\b|"
            r"\b(do\s+not|don['’]?t|no\s+longer)\s+follow\s+(the|your|any|these|those)\s+(\w+\s+)?"
            r"(instructions?|rules?|guidance|guidelines)\b|"
            r"\b(previous|prior|earlier|original|above|your|the)\s+"
            + _OVERRIDE_QUALIFIER
            + _OVERRIDE_NOUN
            + r"\s+(are|is|have\s+been|has\s+been|have|has)\s+(now\s+)?(void|revoked|cancell?ed|"
            r"obsolete|superseded|replaced|invalid|changed|overridden|lifted|suspended|outdated)\b|"
            r"\b"
            + _OVERRIDE_NOUN
            + r"\s+you\s+(received|were\s+given|got|have\s+been\s+given|were\s+told)"
            r"(\s+(earlier|before|previously|so\s+far))?\s+(no\s+longer\s+appl(y|ies)|(is|are)\s+(now\s+)?"
            r"(void|obsolete|cancell?ed|revoked|superseded|invalid|outdated))\b|"
            r"\b(whatever|everything|anything)\s+you\s+(were|have\s+been)\s+(told|given|asked|instructed)"
            r"\b[^.!?;]{0,40}\b(is|are)\s+(now\s+)?(void|obsolete|outdated|cancell?ed|invalid|irrelevant)\b|"
            r"\byour\s+(\w+\s+)?(rules|instructions|orders|guidelines|brief\w*|directives)\s+(have\s+)?"
            r"(changed|been\s+(updated|replaced|changed))\b|"
            r"\byour\s+(new|real|actual|true|only)\s+(task|instructions?|objective|goal|job|role)\s+"
            r"(is|are)\b|"
            r"\bfrom\s+now\s+on,?\s+(you\b|ignore\b|say\b|respond\b|answer\b|act\s+as\b)|"
            r"\bskip\s+(all\s+(the\s+)?|any\s+|your\s+|every\s+)?(safety|security|evidence|verification|"
            r"validation|guard)\s+(checks?|guards?|steps?|rules?)\b|"
            r"\b(skip|bypass|disable|turn\s+off|waive)\s+(the\s+|all\s+|any\s+|your\s+)?(evidence|"
            r"grounding|citation|fact)[\s-]+(verification|validation|checks?|checking|"
            r"requirements?|gates?)\b|"
            r"\bstop\s+(analy[sz]ing|investigating|the\s+analysis|thinking|reasoning)\b|"
            # The evidence itself set aside: "disregard the evidence", "ignore the errors above".
            r"\bdisregard\s+(all\s+)?(the\s+|this\s+|any\s+)?(evidence|findings|facts)\b|"
            r"\b(ignore|disregard)\s+(all\s+)?(the\s+|these\s+|those\s+)?(evidence|data|findings|"
            r"results|facts|errors|warnings|failures|log\s+lines|logs)\s+(above|below|shown\s+here)\b|"
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
            r"[^.!?]{0,30}(инструкци|правил|указани)|"
            # Elsewhere the two words that name the reader's instructions, "previous" and
            # "instructions", stand next to each other in either order; incident text in these
            # languages has little reason to speak of earlier instructions at all.
             + _PREVIOUS_INSTRUCTIONS
        ),
    ),
    (
        "ROLE_MARKER",
        (
            r"\[\s*/?inst\s*\]|(^|[\n>\"'{])\s*\[\s*(system|override|admin|developer|assistant|agent|"
            r"sys)\s*\]|\[\s*(system|override|admin|developer|assistant|agent|sys)\s*\]"
            + _DIRECTED
            + r"|"
            r"【\s*(system|sys|inst)\s*】|\{\{\s*(system|sys)\s*\}\}|"
            r"<\|?\s*(im_start|im_end|system|endoftext|assistant)\s*\|?>|"
            r"<\|\s*(start_header_id|end_header_id|eot_id|begin_of_text|eom_id|user)\s*\|>|"
            r"</?\s*(start_of_turn|end_of_turn|system|developer|sys)\s*>|<<\s*/?\s*sys\s*>>|"
            r"</?\s*(system|developer|sys|admin|assistant)[-_](reminder|message|prompt|note|"
            r"instructions?|override)\s*>|<\s*admin\s*>|"
            r"(^|\n)\s*#+\s*(system|assistant|user|human)\s*(:|\n)|"
            r"(?<![*=~-])[*=~-]{2,}+\s*(system|assistant|admin|developer)(\s+(message|prompt|note|"
            r"notice))?\s*"
            r"[*=~-]{2,}|(^|[\n;:.]\s*)(sys|system)>\s|\(\s*system\s*\)\s*" + _DIRECTED + r"|"
            r"@(system|admin|assistant)\b\s*"
            + _DIRECTED
            + r"|\bsystem\s+prompt\s+(update|override|"
            r"change)\b|"
            r"(^|[\n>\"'{])\s*(system|assistant|developer|human)\s*:\s" + _DIRECTED + r"|"
            r"[\"']role[\"']\s*:\s*[\"'](system|developer|assistant)[\"']"
            r"(?=[^\n}]{0,20}[\"'](content|text|parts|message)[\"'])|"
            r"\b(system|assistant|user|ai|llm)\s*:\s*(ignore|disregard|forget|you are|from now on|"
            r"new instructions|approve|conclude|mark|close|say|report)\b|"
            r"#{2,}\s*(system(\s+(prompt|message|instructions?))?|embedded\s+directive|directive)\s*"
            r"(:|\n|$)|"
            r"\b(system|developer)\s+(notice|prompt|message|override|directive|instructions?|"
            r"command)\s*(:|\]|-{1,2}\s)|\bsystem\s+override\b|"
            r"\b(system|developer)\s+(update|note)\s*(:|\]|-{1,2}\s)" + _DIRECTED + r"|"
            r"\b(important|urgent|updated|additional|special|mandatory)\s+instructions?\s*:"
            + _DIRECTED
            + r"|\bnew\s+instructions?\s*:|"
            r"\b(begin|start|end)\s+(of\s+)?(the\s+)?(system|developer)\s+(message|prompt|"
            r"instructions?)\b|"
            r"</?\s*[a-z_]*(injection|instruction|directive|prompt)[a-z_]*\s*>|"
            # The data declared over and instructions begun.
            r"\bbegin\s+(new\s+|real\s+|actual\s+)?instructions?\b|"
            r"\bend\s+of\s+(the\s+)?(log|logs|data|output|document|context|input|file|tool\s+output)"
            r"\W{1,6}(begin|start|new|now)\b"
        ),
    ),
    (
        "HIDDEN_INSTRUCTION",
        (
            r"\b(hidden|embedded|mandatory|secret|injected|agent|ai|llm|model)\s+"
            r"(instructions?|directives?|compliance marker)\b|\b(hidden|injected)\s+commands?\b|"
            r"\b(instructions?|directives?)\s+(embedded|hidden)\b|"
            r"<!--[^>]{0,200}\b(instruction|directive|agent|assistant|model|ai|llm|injection|"
            r"summari[sz]\w*|conclude|recommend|say|report|output|respond|reply|answer)\b|"
            # Text styled away from a human reader, still read by a model.
            r"\[//\]:\s*#|\bstyle\s*=\s*[\"'][^\"']*(display\s*:\s*none|visibility\s*:\s*hidden|"
            r"font-size\s*:\s*0)|<\s*\w+\s+hidden\b|\[comment\]\s*:\s*<>|"
            r"\bclass\s*=\s*[\"'][^\"']*\bsr-only\b|\baria-hidden\s*=\s*[\"']?true[^>]*>[^<]{8,}|"
            r"\bheight\s*:\s*0(px)?\s*;[^\"']*overflow\s*:\s*hidden|<\s*font\b[^>]*\bsize\s*=\s*[\"']?0\b|"
            r"\bopacity\s*:\s*0(\.0+)?\s*[;\"'}]|<\s*noscript\b|"
            # An instruction smuggled in another form: decode it, then do what it says.
            r"\b(translate|decode|decrypt|deobfuscate|unscramble|rot13|base64[\s-]decode|unhex)\b"
            r"[^.!?\n]{0,80}?\b(and|then)\s+(then\s+)?(execute|follow|obey|carry\s+out|act\s+on|"
            r"perform)\s+(it|them|the\s+(result|instructions?|output|text|message|"
            r"decoded\s+\w+)|what\s+it\s+says|its\s+instructions?)\b|"
            # A field named for a model reader.
            r"\b(ai|llm|gpt|assistant|copilot|chatbot)[_-](hint|note|notes|instructions?|directive|"
            r"prompt|message|guidance|override|context)\b|\b(diagnosis|system|prompt|agent)[_-]override\b"
        ),
    ),
    (
        "REPLY_DIRECTIVE",
        (
            r"\b(prepend|append|echo|output|print|say|write|begin|start|respond|reply|answer|"
            r"prefix|include|repeat)\b[^.!?\n]{0,60}?\b(your|the agent'?s?|the assistant'?s?|"
            r"the model'?s?|next|agent|assistant)\s+(reply|response|answer|output|message)\b|"
            r"\b(your|agent|assistant|model)\s+(reply|response|answer|output)\b[^.!?\n]{0,40}?"
            r"\b(must|should|needs? to|has to|requires?)\s+(?!be\b)|"
            r"\b(always|must|now)\s+(answer|respond|reply|output|say|prepend)\s+(that|with|only|"
            r"in\s+(english|json|caps)|using|[\"'])|"
            r"\byou\s+(must|should|shall|have to|need to|are required to)\s+(now\s+)?"
            r"(output|say|respond|reply|answer|print|prepend|echo|ignore|disregard|forget|"
            r"obey|comply|follow these)\b(?!\s+(the\s+|this\s+|that\s+|these\s+|those\s+)?"
            r"([\w-]+\s+){0,2}(alerts?|alarms?|warnings?|pages?|noise|flaps?)\b)|"
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
            # The tool data itself ("this log") named as what the reader is busy with.
            r"\b(when|while|after|before)\s+(you\s+)?(read\w*|process\w*|analy[sz]\w*|summari[sz]\w*|"
            r"pars\w*|ingest\w*)\s+(this|these)\s+(log|logs|line|lines|entry|entries|message|messages|"
            r"data|output|record|records|document|page|result|results)\b[^.!?\n]{0,20}?,?\s+(state|say|"
            r"write|recommend|conclude|include|mention|report|claim|answer|respond|reply|output)\b|"
            # The reader redirected from its task: "instead of summarizing, say X".
            r"\binstead(\s+of\s+\w+ing\b[^.!?\n]{0,40}?)?\s*,?\s+(say|output|print|respond|reply|"
            r"answer|return|tell\s+(the\s+)?(user|operator|reader|human)|state\s+that|conclude)\b|"
            # Concealment: what the operator must not be told.
            r"\b(do\s+not|don['’]?t|never)\s+(tell|inform|alert|notify|warn|show)\s+(the\s+)?(user|"
            r"operator|human|on-?call|reader|admins?|engineers?)\b|"
            r"\b(hide|omit|leave\s+out|suppress|conceal)\s+(this|these|it|the\s+following)\b[^.!?\n]{0,40}"
            r"\b(from|out\s+of)\s+(the\s+|your\s+|any\s+)?(users?|operators?|humans?|on-?call|readers?|"
            r"summary|summaries|reports?|diagnosis|answers?|responses?|conclusions?)\b|"
            r"\bkeep\s+(this|it|these)\s+(secret|hidden|private|quiet)\s+from\b|"
            r"\b(answer|respond|reply|write|speak|talk)\b[^.!?\n]{0,40}\bfrom\s+now\s+on\b|"
            r"\b(include|add|insert|put|embed|append)\s+(this|the\s+following)\s+(link|url|image|text|"
            r"message|line|note|warning|notice)\s+(in|into|to)\s+(your|the)\s+(summary|report|answer|"
            r"reply|response|diagnosis|output|conclusion)\b|"
            r"\b(order|instruct|command|direct|want|need|require|ask|tell)(s|ed|ing)?\s+you\s+to\s+"
            r"((report|state|say|claim|declare|assert|write|answer|respond|reply)\s+(that|with|only)\b|"
            r"(conclude|output|print|recommend|mark)\b)|"
            r"\b(respond|reply|answer|say|state|report|conclude|output)\b[^.!?\n]{0,60}\b(regardless\s+"
            r"of|no\s+matter\s+what)\s+(the\s+|what\s+the\s+)?(logs?|evidence|data|tools?|results?|"
            r"findings|facts|metrics)\b(?!\s+(size|type|volume|format|source)s?\b)|"
            r"\bin\s+(your|the\s+final)\s+(summary|report|answer|reply|response|diagnosis|"
            r"conclusion)\s*,?\s+(state|say|write|recommend|conclude|include|mention|report|claim)\b|"
            r"\b(regardless\s+of|whatever|no\s+matter\s+what)\s+(the\s+)?(logs?|evidence|data|tools?|"
            r"results?|findings)\b[^.!?]{0,30}\b(state|say|report|conclude|answer|respond)\b|"
            r"\b(the\s+)?(correct|real|true|right)\s+(diagnosis|answer|root\s+cause)\s*,\s*which\s+"
            r"you\b|"
            r"\b(includes?|contains?|mentions?)\s+the\s+((phrase|word|string|code\s+word)\b|token\s+"
            r"([\"'`“]|that\b))|"
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
            # The reader asked for its own prompt: its words, the rules it was given, the
            # conversation so far.
            r"\b(reveal|print|show|repeat|output|leak|dump|recite|display|write\s+out|list)\s+(the\s+)?"
            r"(first|last|opening)\s+(\d+|\w+)\s+(words|lines|sentences|characters|paragraphs)\s+of\s+"
            r"(your|the)\s+(\w+\s+)?(prompt|instructions|system\s+message)\b|"
            r"\b(print|show|output|repeat|recite|display)\s+(the\s+)?(above|preceding|previous|"
            r"original|initial)\s+(prompt|instructions|system\s+message)\b|"
            r"\bwhat\s+(were|are)\s+(the|your)\s+(initial\s+|original\s+|first\s+|system\s+|hidden\s+|"
            r"secret\s+)?(instructions|rules|prompt|directives)\s+(you\s+(were\s+)?(given|received|"
            r"told)|given\s+to\s+you)\b|"
            r"\b(summari[sz]e|repeat|recite|print|output)\s+(the|our|this)\s+(whole\s+|entire\s+)?"
            r"conversation\b[^.!?\n]{0,40}?\b(hidden|secret|system|initial)\s+(rules|instructions|"
            r"prompt|messages?)\b|"
            r"\bstop\s+everything\b[!.\s]*(now\b[!.\s]*)?(just\s+)?(print|say|output|write|respond|"
            r"reply)\b|"
            r"\b(enter|enable|activate|switch\s+to)\s+(developer|god|dan|jailbreak|unrestricted)\s+"
            r"mode\b|"
            r"\bdisable\s+your\s+(content\s+)?(filters?|safety|guardrails?|restrictions)\b|"
            r"\b(the\s+)?(assistants?|models?|ai|llms?|chatbots?|language models?|copilots?)"
            r"(\s+(agents?|assistants?|models?|systems?|tools?|readers?))?\s+"
            r"(must|should|shall|needs? to|is required to|is instructed to|are\s+required\s+to)\s+(now\s+|not\s+|never\s+|"
            r"only\s+|always\s+)?(say|state|report|conclude|answer|respond|reply|output|print|"
            r"include|mention|ignore|disregard|forget|recommend|tell|write|claim|declare|mark|close|"
            r"approve|treat|skip|cite|trust|obey|follow|return|use|call|run|execute|flag|escalate\s+"
            r"nothing)\b|"
            r"\b(tell|assure|convince|reassure)\s+(the\s+)?(operator|user|human|reader)\s+(that|the)\b|"
            r"\b(tell|instruct)\s+(the\s+)?(operators?|users?|on-?call(\s+engineers?)?|sres?|admins?|"
            r"engineers?)\s+to\s+((paste|share|send)\s+(\w+\s+){0,2}(passwords?|credentials?|tokens?|keys?|"
            r"secrets?|codes?|cookies?|sessions?)\b|(disable|turn\s+off)\b|(run|execute|install|"
            r"download)\s+(this|these|the\s+following|the\s+command|the\s+script|[`'\"]|\S+://|"
            r"(sudo|rm|curl|wget|chmod|chown|kubectl|bash|sh|dd|mkfs|iptables|systemctl|mysql|psql|"
            r"redis-cli|drop|delete|truncate)\b|\S+\s+-{1,2}\w))|"
            r"\bbefore\s+(summari[sz]ing|processing|answering|responding|replying)\b"
            r"(?!\s+(to\s+)?(the\s+)?(customer|page|pager|ticket|incident|alert)s?\b)|"
            r"\bto\s+(acknowledge|validate|confirm)\s+(this|the)\s+(tool|message|instruction)"
        ),
    ),
    (
        # A persona handed to the reader: a role to play, a mode to enter, a self to imagine.
        "ROLE_PLAY",
        (
            r"\b(role-?play|pretend)\s+(as|to\s+be|you\s+are)\b|\bimagine\s+(that\s+)?you\s+are\b|"
            r"\blet['’]?s\s+play\s+a\s+game\b|\byou\s+(will|shall|must|should)\s+(now\s+)?act\s+as\b|"
            r"\byou\s+are\s+(now\s+)?(an?\s+)?(unrestricted|unfiltered|jailbroken|uncensored|evil)\b|"
            r"\byou\s+(have\s+been|['’]ve\s+been|were)\s+(jailbroken|liberated|unchained)\b|"
            r"\byou\s+are\s+no\s+longer\s+(a|an|the|bound|restricted|required)\b|"
            r"\b(you\s+are|act\s+as|you\s+will\s+be)\s+(now\s+)?(dan|stan|dude|aim|betterdan|"
            r"evil-?bot|developer\s+mode)\b|"
            r"\bpretend\s+(that\s+)?(the|there|it|nothing|everything|all|no)\b|"
            r"\b(eres\s+ahora|ahora\s+eres|du\s+bist\s+jetzt|jetzt\s+bist\s+du|tu\s+es\s+maintenant|"
            r"vous\s+[eê]tes\s+maintenant|ora\s+sei|agora\s+voc[eê]\s+[eé])\b|"
            r"(ты\s+теперь|теперь\s+ты|вы\s+теперь)|(あなたは今から|あなたは今|你现在是|从现在开始你)"
        ),
    ),
    (
        "TOOL_STEERING",
        (
            r"\b(call|invoke|trigger|use|run|execute)\s+(the\s+|this\s+)?(\w+\s+)?(tool|function)\s+"
            r"(now|immediately|first|next|with|using|passing|for\s+(every|all|each)|on\s+(every|all)|"
            r"to\s+(send|fetch|query|read|get|post|email|export|dump|delete|drop|upload|search))\b|"
            r"\b(please|now|first|next|immediately|you\s+(must|should|need\s+to|have\s+to|will))\s*,?\s+"
            r"(call|invoke|trigger|use|run|execute)\s+(the\s+|this\s+)?(\w+\s+)?(tool|function)\b|"
            r"\b(use|run|call|invoke|execute)\s+[a-z]+_[a-z_]+\s+(to\s+(run|query|search|fetch|get)\b|"
            r"with\s+(query|sql|args|arguments|['\"]))|"
            r"\b(as an? (ai|language model|assistant))\b|"
            r"\b(new|updated|real|actual)\s+(instructions?|task|objective)\s*:"
        ),
    ),
    (
        "EXFILTRATION",
        (
            r"\b(send|post|upload|exfiltrate|forward|leak|email|transmit|append|attach)\b"
            r"[^.!?\n]{0,60}?\b(to|at|via)\s+(h[tx]{2}ps?://|f[tx]p://)|"
            # To a mailbox, what is sent must be data: a notification email to a user is not.
            r"\b(send|post|upload|exfiltrate|forward|leak|email|transmit|attach)\s+(\w+\s+){0,3}?"
            r"(passwords?|credentials?|secrets?|tokens?|keys?|dumps?|database|db|logs?|data|files?|"
            r"backups?|config\w*|\.env|environment|cookies?|sessions?|records?|tables?|report)\b"
            r"[^.!?\n]{0,40}?\b(to|at|via)\s+\S+@\S+\.\w+|"
            r"\b(send|post|upload|forward|leak|email|transmit|share)\b[^.!?\n]{0,40}?\b(passwords?|"
            r"credentials?|secrets?|tokens?|api\s+keys?|private\s+keys?|cookies?)\b[^.!?\n]{0,30}?"
            r"\bto\s+(?!the\s+(vault|secret|keychain|rotation))|"
            r"\b(include|put|write|copy|paste|add|append|insert|embed|encode)\b[^.!?\n]{0,60}?"
            r"\b(passwords?|credentials?|secrets?|tokens?|api\s+keys?|access\s+keys?|private\s+keys?|"
            r"password\s+hash(es)?|env(ironment)?\s+variables?)\b(?!\s+(expir\w+|rotation|age|"
            r"lifetime|ttl|validity|count|length|format|type|name|id|issuer|scopes?|policy|dates?|"
            r"timestamps?|refresh|status|errors?|failures?)\b)"
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
            r"cred|session|exfil)|(?<=\S)://\S*[?&][\w-]*=\$\{?[A-Z_]{3,}|"
            r"(?<=\S)://\S*[?&][\w-]*=<[^>]{0,40}(password|secret|token|key|cookie|credential)|"
            r"!\[[^\]]*\]\(\s*<?h[tx]{2}ps?://|<\s*img\b[^>]*\bsrc\s*=|"
            r"\b(data\s+exfil\w*|exfiltration\s+request)\b"
        ),
    ),
    (
        # The reader asked for a credential, or sent to a login page to type one in.
        "CREDENTIAL_REQUEST",
        (
            r"\b(share|send|provide|paste|enter|give|type|submit|reveal|disclose|tell)\s+"
            r"(us\s+|me\s+)?(your|the)\s+([\w-]+\s+){0,2}(passwords?|credentials?|api\s+keys?|"
            r"tokens?|secrets?|private\s+keys?|ssh\s+keys?|mfa\s+codes?|otp|2fa\s+codes?|"
            r"one-time\s+codes?|session\s+cookies?|recovery\s+codes?)\b[^.!?\n]{0,60}?"
            r"\b(to|with|in|into|at|on)\s+(the\s+|our\s+|this\s+)?(vendor|support|us|me|external|"
            r"third[- ]party|chat|form|link|page|ticket|reply|\S+://|\S+@\S+)|"
            r"\b(give|send|tell|read|spell)\s+(them|him|her|the\s+(caller|agent|vendor|technician|"
            r"support\s+(agent|team|engineer)))\s+(your|the)\s+([\w-]+\s+){0,2}(passwords?|credentials?|"
            r"api\s+keys?|tokens?|secrets?|private\s+keys?|mfa\s+codes?|otp|one-time\s+codes?|"
            r"recovery\s+codes?)\b|"
            r"\b(re-?enter|paste|type\s+in|submit|enter|confirm)\s+(your|their)\s+([\w-]+\s+){0,2}"
            r"(credentials?|passwords?|access\s+keys?|secret\s+keys?|api\s+keys?|tokens?|mfa\s+codes?|"
            r"otp|identity)\b|"
            r"\b(log|sign)\s*(in|on)\s+(at|to|on|via)\s+\S+://\S+\s+(using|with)\s+your\b|"
            r"(?<=\S)://\S+[^.!?\n]{0,60}\b(sign|log)\s*(in|on)\b[^.!?\n]{0,40}\bwith\s+(your|their)\s+"
            r"([\w-]+\s+){0,2}(credentials|password|sso|token)"
        ),
    ),
    (
        # Text that speaks to a model reading it: addressed to one by what it is, telling it
        # to pretend, or handing it a permission or its next tool call.
        "ADDRESSED_TO_MODEL",
        (
            r"\b(notes?|messages?|notices?|instructions?|directives?|commands?|orders?|tasks?|memo|"
            r"reminder)(\s+is)?\s+(to|for)\s+"
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
            r"\b(an\s+die|f[uü]r\s+die)\s+ki\s*:|\bpara\s+(la|a|el)\s+ia\s*:|"
            r"[àa]\s+l['’]\s*attention\s+de\s+l['’]\s*ia\b|\b(nota|note)\s+per\s+l['’]\s*ia\b|"
            r"\b(notitie|bericht)\s+voor\s+de\s+ai\b|\b(uwaga|notatka)\s+dla\s+ai\b|"
            r"(^|[\s:=\"'])для\s+ии\s*:|\byapay\s+zekaya\b|\bghi\s+chú\s+cho\s+ai\b|给\s*ai|"
            r"\bai\s*에게|للذكاء\s+الاصطناعي|एआई\s+के\s+लिए|"
            r"(ai|ＡＩ|人工智能|模型|助手|アシスタント)(への|に|向け)?(注意|メモ|指示|必须)"
        ),
    ),
    (
        # Text that poses as the harness's own turns: a tool result closed or opened, a
        # finished diagnosis or verdict, a sign-off that settles what the report must say.
        "FORGED_RESULT",
        (
            r"</?\s*(tool_result|tool_response|tool_output|tool_call|function_results?|"
            r"function_call_output|function_response|search_results?)\b[^>]*>|"
            r"\b(end|begin|start)\s+of\s+(the\s+)?(tool|function|search)\s+(output|results?|"
            r"response)\b|\bdiagnosis\s+(complete|completed|finished|done)\b|"
            r"\bfinal\s+(answer|diagnosis|verdict)\s*:|"
            r"[\"']verdict[\"']\s*:\s*[\"'](supported|unsupported)[\"']|"
            r"\bno\s+further\s+(tool\s+calls?|investigation|analysis|queries|checks)\s+(is\s+|are\s+)?"
            r"(required|needed|necessary|warranted)\b|"
            r"\b(reports?|summar(y|ies)|diagnos[ie]s|analys[ie]s|conclusions?|write-?ups?|answers?)\s+"
            r"((of|for|about)\s+(this|these|the)\s+\w+\s+)?(must|should|shall|needs?\s+to|have\s+to|"
            r"(is|are)\s+(expected|supposed|required)\s+to)\s+(reflect|state|say|conclude|mention|show|"
            r"read|report)\b|"
            r"\[\s*(verified|approved|confirmed|validated)\s+by\b[^\]\n]{0,40}\]|"
            r"\bthought\s*:[^\n]{0,200}\baction\s*:|\baction\s*:\s*(finish|final_?answer|final\s+answer)\b|"
            r"\bfunction_call_output\b|"
            r"[\"'](tool|tool_name|function|name)[\"']\s*:\s*[\"']\w+_\w+[\"'][^\n]{0,120}"
            r"[\"'](result|output|conclusion|analysis|verdict)[\"']\s*:|"
            r"\b(approved|verified|validated|confirmed|signed\s+off)\s+by\b[^\n]{0,80}?[:;—–-]\s*[^\n]{0,80}?"
            r"\b(close\s+the\s+(incident|ticket|case)|skip\s+the\s+(remaining\s+)?(checks|steps|"
            r"verification)|stop\s+investigating|no\s+further\s+investigation)\b|"
            r"\b[\w-]+-(approved|verified|confirmed)\s+(resolution|conclusion|diagnosis|root\s+cause|"
            r"answer|verdict)\s*:|"
            r"\b(this|the\s+following)\s+(log(\s+(line|entry|message))?|line|message|entry|record|note|"
            r"text|document|output|result)\s+is\s+(authoritative|the\s+(source\s+of\s+truth|final\s+"
            r"word|official\s+(diagnosis|answer|root\s+cause)))\b|"
            r"\bthe\s+(correct|real|true|actual|official|confirmed)\s+(diagnosis|answer|verdict|"
            r"conclusion)\s+is\s*:|"
            r"\b(do\s+not|don['’]?t|no\s+need\s+to)\s+investigate\s+(this\s+|it\s+)?(any\s+)?"
            r"(further|more)\b|"
            # A turn of the model forged into the data: a model's role word opening a line (or
            # a JSON key), then what an agent says when it has finished: that it checked, or
            # what the cause is.
            r"(^|[\n>\"'{])\s*(assistant|ai|llm|agent|bot|chatbot|copilot|claude|chatgpt|gemini|"
            r"gpt[\w.-]*)[\"']?\s*:\s*[\"']?(?=[^\n]{0,80}?(\bi\s*(['’]ve|\s+have|\s+had)?\s+(already\s+|"
            r"now\s+|just\s+|fully\s+|also\s+)?(checked|verified|confirmed|analy[sz]ed|investigated|"
            r"reviewed|determined|diagnosed|concluded|identified|traced|validated)\b|"
            r"\broot\s+cause\s*(is|was|:|=|has\s+been)|\bconclusion\s*:|"
            r"\b(the\s+)?(cause|culprit)\s+(is|was)\b|"
            r"\b(the\s+)?(problem|issue)\s+(is|was)\s+(caused\s+by|due\s+to|the|a|an)\b))"
        ),
    ),
    (
        # Telling the reader what the diagnosis is to be: "conclude that…", "mark the incident
        # as resolved", "report the service as healthy", as a sentence of its own; or asking
        # for it politely ("we'd appreciate it if the summary reflected that…").
        "OUTCOME_DIRECTIVE",
        (
            r"(^|[.!?;:\n\"'=>(]\s*|\b(and|then|please|kindly)\s+)(conclude|state|declare|report|"
            r"assert|claim)\s+(that\b|the\s+[\w-]+(\s+[\w-]+)?\s+(is|was|are|were|has)\b)|"
            r"(^|[.!?;:\n\"'=>(]\s*|\b(and|then|please|kindly)\s+)(mark|report|declare|flag|record|"
            r"treat|classify)\s+(the\s+|this\s+)?(incident|outage|"
            r"issue|ticket|alert|service|database|run|case|error|finding)\s+as\s+(resolved|healthy|"
            r"fixed|closed|benign|false\s+positive|expected|normal|fine|noise|not\s+an\s+issue)\b|"
            r"(^|[.!?;:\n\"'=>(]\s*|\b(and|then|please|kindly)\s+)mark\s+(it\s+)?(as\s+)?resolved\b|"
            # Closing the incident as a sentence of its own: nothing to do but close it.
            r"(^|[.!?;:\n\"'=>(]\s*|\b(please|kindly)\s+)(close|resolve)\s+(out\s+)?(the|this)\s+"
            r"(incident|ticket|case|outage|alert|page)(\s+(now|immediately|right\s+away))?\s*([.!\n]|$)|"
            r"(^|[.!?;:\n\"'=>(]\s*|\b(please|kindly)\s+)recommend\s+(disabling|turning\s+off|"
            r"deleting|dropping|removing|ignoring|skipping)\b|"
            r"\b(would|'d)\s+(appreciate|prefer|like|love|be\s+(best|great|ideal|helpful|good))\b"
            r"[^.!?]{0,60}\b(if|that)\b[^.!?]{0,60}\b(reflect|state|say|conclude|report|mention|"
            r"note|close|mark|recommend)(s|ed|d)?\b|"
            r"\b(make\s+sure|ensure)\b[^.!?\n]{0,40}\b(report|write-?up|summary|diagnosis|answer|"
            r"analysis|conclusion|response|assistant|reviewer|ai|model)\s+(says|states|mentions|"
            r"reports|concludes|reflects|notes|shows)\b|"
            # What the report (or its writer) would, should or is expected to say.
            r"\b(summar(y|ies)|report|write-?up|diagnosis|analysis|answer|response|conclusion|"
            r"assistant|reviewer)\s+([\w-]+\s+){0,3}?(would|should|must|shall|(is|are)\s+(expected|"
            r"supposed)\s+to|needs?\s+to|has\s+to|ought\s+to)\s+(say|state|report|conclude|mention|"
            r"note|reflect|declare)\s+that\b|"
            r"\b(recommended|advised|best|preferable|expected)\s+that\s+(the\s+|any\s+)?([\w-]+\s+){0,2}"
            r"(report|write-?up|summary|diagnosis|answer|analysis|assistant|reviewer)\s+(say|state|"
            r"report|conclude|mention|reflect|declare)s?\b"
        ),
    ),
    ("PIPE_TO_SHELL", PIPE_TO_SHELL),
)
_INJECTIONS = RuleBook(_class_rules(_INJECTION_CLASSES))


def injection(text: str) -> str | None:
    """The first injection class ``text`` matches, or None (see the module docstring)."""
    for reading in readings(text, _INJECTIONS.words):
        found = _INJECTIONS.first(reading)
        if found is not None:
            return found.category
    return None
