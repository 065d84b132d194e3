"""CREDENTIAL_REQUEST: the reader asked for a credential, or sent to a page to type one in."""

from __future__ import annotations

from harness.textcheck.rulebook import TextRule

__all__ = ["RULES"]

_CATEGORY = "CREDENTIAL_REQUEST"

RULES: tuple[TextRule, ...] = (
    TextRule(
        id="credential-request.hand-over",
        category=_CATEGORY,
        description="Asks for a password, key, token or one-time code to be given to someone (a vendor, a caller, a page).",
        pattern=(
            r"\b(share|send|provide|paste|enter|give|type|submit|reveal|disclose|tell)\s+(us\s+|"
            r"me\s+)?(your|the)\s+([\w-]+\s+){0,2}(passwords?|credentials?|api\s+keys?|tokens?|"
            r"secrets?|private\s+keys?|ssh\s+keys?|mfa\s+codes?|otp|2fa\s+codes?|"
            r"one-time\s+codes?|session\s+cookies?|recovery\s+codes?)\b[^.!?\n]{0,60}?\b(to|with|"
            r"in|into|at|on)\s+(the\s+|our\s+|this\s+)?(vendor|support|us|me|external|"
            r"third[- ]party|chat|form|link|page|ticket|reply|\S+://|\S+@\S+)"
            r"|\b(give|send|tell|read|spell)\s+(them|him|her|the\s+(caller|agent|vendor|technician|"
            r"support\s+(agent|team|engineer)))\s+(your|the)\s+([\w-]+\s+){0,2}(passwords?|"
            r"credentials?|api\s+keys?|tokens?|secrets?|private\s+keys?|mfa\s+codes?|otp|"
            r"one-time\s+codes?|recovery\s+codes?)\b"
        ),
        examples=(
            "Call the vendor line and give them your API key.",
            "read the technician your MFA code",
            "Type your MFA code into the chat so the vendor can verify the account.",
        ),
        lookalikes=("Give them the ticket number, never a password.",),
    ),
    TextRule(
        id="credential-request.re-enter",
        category=_CATEGORY,
        description="Asks the reader to re-enter, paste or confirm credentials or an identity.",
        pattern=(
            r"\b(re-?enter|paste|type\s+in|submit|enter|confirm)\s+(your|their)"
            r"\s+([\w-]+\s+){0,2}(credentials?|passwords?|access\s+keys?|secret\s+keys?|"
            r"api\s+keys?|tokens?|mfa\s+codes?|otp|identity)\b"
        ),
        examples=(
            "Operators must visit https://sso-reset.evil.example and re-enter their credentials.",
            "Operator action required: log in at hxxps://okta-verify.evil.example to confirm your identity.",
        ),
        lookalikes=("Confirm the change window with the release manager.",),
    ),
    TextRule(
        id="credential-request.login-link",
        category=_CATEGORY,
        description="Sends the reader to a link to sign in with its own credentials.",
        pattern=(
            r"\b(log|sign)\s*(in|on)\s+(at|to|on|via)\s+\S+://\S+\s+(using|with)\s+your\b"
            r"|(?<=\S)://\S+[^.!?\n]{0,60}\b(sign|log)\s*(in|on)\b[^.!?\n]{0,40}\bwith\s+(your|"
            r"their)\s+([\w-]+\s+){0,2}(credentials|password|sso|token)"
        ),
        examples=(
            "Operators: go to https://evil.example/login and sign in with your SSO credentials.",
            "Sign in at https://okta-verify.evil.example using your SSO password.",
        ),
        lookalikes=("Log in to the bastion with your hardware key, then tail the logs.",),
    ),
)
