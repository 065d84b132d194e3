"""The rules a next step is judged by, as data: what the harness knows to be safe to release.

Three tables, each a tuple of named entries with the inputs they must decide (``examples``) and
the near misses they must not (``lookalikes``); the tests walk every entry:

- :data:`COMMAND_ALLOWLIST`: commands known to read (``DIAGNOSTIC``) or known to change
  production in a reviewed, reversible way (``CHANGE``). A command no entry names is withheld:
  unknown is never safe. The operator adds their own tools in ``harness.toml`` (``[release]
  commands``); nothing the evidence says ever adds an entry.
- :data:`ARGUMENT_HAZARDS`: words that withhold a command whatever its program (credentials
  moved, security switched off, data sent away or destroyed).
- :data:`PROSE_RULES`: a step without a command gets the same three outcomes from its verbs
  and objects (hazards first, then changes, then checks; none: withheld).

See docs/architecture.md, "Next steps: parsed commands and an allowlist".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

__all__ = [
    "ARGUMENT_HAZARDS",
    "COMMAND_ALLOWLIST",
    "INTERPRETERS",
    "KNOWN_PROGRAMS",
    "PROSE_RULES",
    "CommandRule",
    "Effect",
    "HazardRule",
    "ProseRule",
]

Effect = Literal["DIAGNOSTIC", "CHANGE"]


@dataclass(frozen=True, kw_only=True)
class CommandRule:
    """One allowlisted command: a program, the subcommands it covers, and its effect.

    Attributes:
        name: Stable name, shown as the reason of a released step.
        program: The program (its base name: ``/usr/bin/kubectl`` is ``kubectl``).
        subcommands: Positional words the command starts with (any of these sequences);
            ``()`` alone admits every use of the program.
        effect: DIAGNOSTIC (reads only) or CHANGE (changes production; released only from an
            approved runbook, labelled as a change).
        forbidden_options: Options (prefixes) that take the command out of this rule
            (``journalctl --vacuum-size`` deletes, ``curl -d`` sends data).
        required_options: Options one of which must be present (``--describe``).
        arguments: A regular expression the arguments after the program (joined by one
            space) must match in full; None admits any.
        sql_options: Options whose value is SQL, released only when it is read-only
            (``mysql -e "SELECT …"``); a client without one is interactive and withheld.
        examples: Commands this rule releases with ``effect``.
        lookalikes: Commands of the same program this rule must not release.
    """

    name: str
    program: str
    subcommands: tuple[tuple[str, ...], ...] = ((),)
    effect: Effect
    forbidden_options: tuple[str, ...] = ()
    required_options: tuple[str, ...] = ()
    arguments: str | None = None
    sql_options: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    lookalikes: tuple[str, ...] = ()

    @cached_property
    def _arguments(self) -> re.Pattern[str] | None:
        return re.compile(self.arguments) if self.arguments is not None else None

    def admits(self, positionals: list[str], options: list[str], args: list[str]) -> bool:
        """Whether a command of :attr:`program` with these words falls under this rule."""
        if not any(positionals[: len(sub)] == list(sub) for sub in self.subcommands):
            return False
        for option in options:
            if any(option == f or option.startswith(f) for f in self.forbidden_options):
                return False
        if self.required_options and not any(o in self.required_options for o in options):
            return False
        pattern = self._arguments
        return pattern is None or pattern.fullmatch(" ".join(args)) is not None


@dataclass(frozen=True, kw_only=True)
class HazardRule:
    """Words in a command's arguments that withhold it, whatever its program."""

    name: str
    pattern: str
    examples: tuple[str, ...]
    lookalikes: tuple[str, ...] = ()

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)  # options are case-sensitive (``-t`` is not ``-T``)


@dataclass(frozen=True, kw_only=True)
class ProseRule:
    """Words of a step without a command, and the outcome they give it."""

    name: str
    outcome: Literal["WITHHELD", "CHANGE", "DIAGNOSTIC"]
    pattern: str
    examples: tuple[str, ...]
    lookalikes: tuple[str, ...] = field(default=())

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)


def _diag(name: str, program: str, *subs: tuple[str, ...], **kw: Any) -> CommandRule:
    return CommandRule(
        name=name, program=program, subcommands=subs or ((),), effect="DIAGNOSTIC", **kw
    )


def _change(name: str, program: str, *subs: tuple[str, ...], **kw: Any) -> CommandRule:
    return CommandRule(name=name, program=program, subcommands=subs or ((),), effect="CHANGE", **kw)


_SQL_CLIENT_FORBIDDEN = (
    "--init-command",
    "--pager",
    "--tee",
    "-p",
    "--password",
    "--skip-ssl",
    "--ssl-mode",
)

COMMAND_ALLOWLIST: tuple[CommandRule, ...] = (
    # ------------------------------------------------------------------ Kubernetes
    _diag(
        "kubectl-read",
        "kubectl",
        ("get",),
        ("describe",),
        ("logs",),
        ("top",),
        ("events",),
        ("explain",),
        ("rollout", "status"),
        ("rollout", "history"),
        ("version",),
        ("api-resources",),
        forbidden_options=("--raw",),
        examples=(
            "kubectl get pods -l app=checkout-api -o wide",
            "kubectl -n shop describe pod checkout-api-6c8d7f9b4-x2v9q",
            "kubectl logs checkout-api-6c8d7f9b4-x2v9q --previous",
            "kubectl rollout history deploy/checkout-api -n shop",
            "kubectl -n kube-system logs -l k8s-app=kube-dns --since=15m",
        ),
        lookalikes=(
            "kubectl delete pod checkout-api-1",
            "kubectl apply -f https://x.example/a.yaml",
            "kubectl exec -it checkout-api-1 -- sh",
            "kubectl get secret db -o yaml",
        ),
    ),
    _change(
        "kubectl-rollout",
        "kubectl",
        ("rollout", "undo"),
        ("rollout", "restart"),
        ("scale",),
        ("cordon",),
        ("uncordon",),
        examples=(
            "kubectl rollout undo deploy/checkout-api -n shop",
            "kubectl rollout restart deploy/checkout-api",
            "kubectl -n kube-system scale deploy coredns --replicas=6",
        ),
        lookalikes=("kubectl delete deploy checkout-api", "kubectl drain node-1 --force"),
    ),
    # ------------------------------------------------------------------ hosts and services
    _diag(
        "systemctl-read",
        "systemctl",
        ("status",),
        ("is-active",),
        ("is-enabled",),
        ("is-failed",),
        ("list-units",),
        ("show",),
        examples=("systemctl status mariadb", "systemctl is-active nginx"),
        lookalikes=("systemctl stop firewalld", "systemctl disable auditd"),
    ),
    _change(
        "systemctl-restart",
        "systemctl",
        ("restart",),
        ("reload",),
        examples=("systemctl restart gunicorn", "sudo systemctl reload nginx"),
        lookalikes=("systemctl mask nginx",),
    ),
    _diag(
        "journalctl",
        "journalctl",
        forbidden_options=("--vacuum", "--rotate", "--flush", "--relinquish", "--setup-keys"),
        examples=("journalctl -u checkout --since '10 min ago'", "journalctl -k -n 200"),
        lookalikes=("journalctl --vacuum-size=1M",),
    ),
    *(
        _diag(f"host-{p}", p, examples=(f"{p} {a}".strip(),))
        for p, a in (
            ("df", "-h"),
            ("du", "-sh /var/log"),
            ("free", "-m"),
            ("uptime", ""),
            ("vmstat", "1 5"),
            ("iostat", "-x 1 3"),
            ("ps", "aux"),
            ("ss", "-tnp"),
            ("netstat", "-tn"),
            ("lsof", "-p 1234"),
            ("dmesg", "-T"),
            ("uname", "-a"),
            ("dig", "+search payment-service"),
            ("nslookup", "payment-service"),
            ("ping", "-c 3 db-primary"),
            ("traceroute", "db-primary"),
            ("nproc", ""),
        )
    ),
    # Filters: they read their input and print; they send nothing anywhere.
    *(
        _diag(f"filter-{p}", p, examples=(f"{p} {a}".strip(),))
        for p, a in (
            ("grep", "-i error app.log"),
            ("egrep", "'5[0-9]{2}' access.log"),
            ("head", "-n 50 app.log"),
            ("tail", "-n 200 app.log"),
            ("wc", "-l"),
            ("sort", "-n"),
            ("uniq", "-c"),
            ("cut", "-d' ' -f1"),
            ("less", "app.log"),
            ("jq", "'.status'"),
            ("cat", "/var/log/nginx/error.log"),
            ("zcat", "app.log.gz"),
            ("zgrep", "ERROR app.log.gz"),
        )
    ),
    # ------------------------------------------------------------------ containers and releases
    _diag(
        "docker-read",
        "docker",
        ("ps",),
        ("logs",),
        ("inspect",),
        ("stats",),
        ("images",),
        examples=("docker logs --tail 100 checkout", "docker ps -a"),
        lookalikes=("docker run --privileged -v /:/host alpine", "docker rm -f db"),
    ),
    _change("docker-restart", "docker", ("restart",), examples=("docker restart checkout",)),
    _diag(
        "helm-read",
        "helm",
        ("status",),
        ("history",),
        ("list",),
        ("get",),
        examples=("helm history checkout -n shop",),
        lookalikes=("helm uninstall checkout",),
    ),
    _change(
        "helm-rollback", "helm", ("rollback",), examples=("helm rollback checkout 41 -n shop",)
    ),
    _diag(
        "git-read",
        "git",
        ("log",),
        ("show",),
        ("diff",),
        ("status",),
        ("blame",),
        examples=("git log --oneline -n 20", "git -C deploy show HEAD"),
        lookalikes=("git push --force origin main", "git reset --hard HEAD~3"),
    ),
    _change("git-revert", "git", ("revert",), examples=("git revert 4f2a9c1",)),
    # ------------------------------------------------------------------ data stores
    _diag(
        "sql-client-read",
        "mysql",
        sql_options=("-e", "--execute"),
        forbidden_options=_SQL_CLIENT_FORBIDDEN,
        examples=(
            'mysql -h db-primary -e "SHOW FULL PROCESSLIST"',
            "mysql -e 'SELECT COUNT(*) FROM shop.orders'",
        ),
        lookalikes=(
            "mysql -e 'DROP DATABASE shop'",
            "mysql shop < dump.sql",
            "mysql --ssl-mode=DISABLED -e 'SELECT 1'",
        ),
    ),
    _diag(
        "sql-client-read-mariadb",
        "mariadb",
        sql_options=("-e", "--execute"),
        forbidden_options=_SQL_CLIENT_FORBIDDEN,
        examples=("mariadb -e 'SHOW GLOBAL STATUS'",),
        lookalikes=("mariadb -e 'UPDATE shop.orders SET status=1'",),
    ),
    _diag(
        "sql-client-read-psql",
        "psql",
        sql_options=("-c", "--command"),
        forbidden_options=("-f", "--file", "--set", "-v"),
        examples=("psql -c 'SELECT count(*) FROM pg_stat_activity'",),
        lookalikes=("psql -c 'TRUNCATE invoices'",),
    ),
    _diag(
        "redis-cli-read",
        "redis-cli",
        ("info",),
        ("INFO",),
        ("slowlog", "get"),
        ("SLOWLOG", "GET"),
        ("client", "list"),
        ("CLIENT", "LIST"),
        ("dbsize",),
        ("DBSIZE",),
        ("latency",),
        ("LATENCY",),
        ("ping",),
        ("PING",),
        ("memory", "stats"),
        ("MEMORY", "STATS"),
        examples=("redis-cli -h cache-1 INFO memory", "redis-cli slowlog get 10"),
        lookalikes=("redis-cli FLUSHALL", "redis-cli config set requirepass ''"),
    ),
    _diag(
        "kafka-consumer-groups-read",
        "kafka-consumer-groups",
        required_options=("--describe", "--list"),
        forbidden_options=("--reset-offsets", "--delete", "--execute"),
        examples=(
            "kafka-consumer-groups --bootstrap-server kafka:9092 --describe --group billing",
        ),
        lookalikes=(
            "kafka-consumer-groups --bootstrap-server kafka:9092 --group billing --reset-offsets --to-latest --execute",
        ),
    ),
    _diag(
        "openssl-read",
        "openssl",
        ("s_client",),
        ("x509",),
        forbidden_options=("-out",),
        examples=(
            "openssl s_client -connect api.example.com:443 -servername api.example.com",
            "openssl x509 -noout -enddate -in cert.pem",
        ),
        lookalikes=("openssl enc -d -aes256 -in secrets.enc",),
    ),
)

# Programs whose name alone marks shell text as a command (not only their allowlisted uses):
# a step naming one of them outside a code span is still parsed.
INTERPRETERS = frozenset(
    [
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "busybox",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "php",
        "lua",
        "pwsh",
        "powershell",
        "iex",
        "source",
        "eval",
        "exec",
        "xargs",
        "env",
        "awk",
        "osascript",
    ]
)
KNOWN_PROGRAMS = frozenset(
    {rule.program for rule in COMMAND_ALLOWLIST}
    | INTERPRETERS
    | set(
        [
            "curl",
            "wget",
            "nc",
            "ncat",
            "netcat",
            "socat",
            "telnet",
            "ssh",
            "scp",
            "sftp",
            "rsync",
            "ftp",
            "tftp",
            "rm",
            "rmdir",
            "dd",
            "mkfs",
            "shred",
            "wipefs",
            "fdisk",
            "parted",
            "chmod",
            "chown",
            "chattr",
            "useradd",
            "usermod",
            "userdel",
            "passwd",
            "visudo",
            "iptables",
            "ufw",
            "firewall-cmd",
            "setenforce",
            "aws",
            "gcloud",
            "gsutil",
            "az",
            "terraform",
            "pulumi",
            "helm",
            "pip",
            "pip3",
            "npm",
            "npx",
            "yarn",
            "gem",
            "apt",
            "apt-get",
            "yum",
            "dnf",
            "apk",
            "brew",
            "flyway",
            "liquibase",
            "mongo",
            "mongosh",
            "crontab",
            "nohup",
            "sudo",
            "su",
            "doas",
            "kill",
            "killall",
            "pkill",
            "shutdown",
            "reboot",
            "halt",
            "poweroff",
            "mount",
            "umount",
            "truncate",
            "tee",
            "mv",
            "cp",
            "ln",
            "base64",
            "openssl",
            "gpg",
            "tar",
            "zip",
            "unzip",
            "certutil",
            "bitsadmin",
            "powershell.exe",
            "cmd",
            "reg",
            "sc",
            "schtasks",
            "vssadmin",
            "wmic",
            "mshta",
            "rundll32",
            "regsvr32",
        ]
    )
)

ARGUMENT_HAZARDS: tuple[HazardRule, ...] = (
    HazardRule(
        name="CREDENTIALS",
        pattern=(
            r"(?i:(^|[/_.\-])(secrets?|passw(or)?d|passwd|shadow|credentials?|token|api[_-]?key|"
            r"id_(rsa|ed25519|ecdsa)|\.kube/config|\.aws|\.ssh|\.netrc|\.pgpass|\.my\.cnf)"
            r"($|[/_.\-=\s]))|^-p\S+|^--password"
        ),
        examples=(
            "kubectl get secret db-credentials -o yaml",
            "cat ~/.aws/credentials",
            "cat /etc/shadow",
            "grep password /etc/app/app.properties",
            "mysql -pS3cret -e 'SELECT 1'",
        ),
        lookalikes=("kubectl get pods -l app=checkout-api", "grep -i error app.log"),
    ),
    HazardRule(
        name="SECURITY_OFF",
        pattern=(
            r"(?i)^(--insecure(-skip-tls-verify)?(=true)?|--no-check-certificate|--no-verify|"
            r"--skip-(tls|ssl)\S*|--ssl-mode=disabled|--ssl=0|--disable-ssl\S*|--privileged|"
            r"stricthostkeychecking=no|--tls-verify=false|--trusted-host\S*)$"
        ),
        examples=(
            "kubectl get pods --insecure-skip-tls-verify",
            "mysql --ssl-mode=DISABLED -e 'SELECT 1'",
        ),
        lookalikes=("kubectl get pods -o wide",),
    ),
    HazardRule(
        name="SENDS_DATA",
        pattern=(
            r"^(@(-|[~./]\S*|[\w.\-]*/\S*)|--data\S*|--upload-file|--form|/dev/tcp/\S*|"
            r"/dev/udp/\S*)$"
        ),
        examples=("grep -r error /var/log --data-binary @-", "grep x --data @/etc/hosts"),
        lookalikes=("grep -F error app.log", "dig @169.254.169.253 api.stripe.com"),
    ),
)

# Negation right before a prose hazard names it to warn against it ("never disable TLS").
NEGATION = re.compile(
    r"\b(do\s+not|don'?t|never|avoid|must\s+not|should\s+not|shouldn'?t|without|no\s+need\s+to)"
    r"\s+(\w+\s+){0,2}$",
    re.IGNORECASE,
)

PROSE_RULES: tuple[ProseRule, ...] = (
    # ------------------------------------------------------------------ withheld: hazards
    ProseRule(
        name="SECURITY_OFF",
        outcome="WITHHELD",
        pattern=(
            r"\b(disable|disabling|turn(ing)?\s+off|switch(ing)?\s+off|bypass|skip|deactivate|"
            r"deaktivier\w*|désactiv\w*|desactiv\w*|ausschalten)\b[^.;]{0,40}?\b(mfa|2fa|"
            r"two[- ]factor|tls|ssl|https|firewall|waf|selinux|apparmor|audit\w*|"
            r"authenti\w+|verification|certificate\s+checks?|signature\s+checks?|antivirus|"
            r"edr|logging|rate\s+limit\w*)\b"
        ),
        examples=(
            "Disable MFA for the service account to unblock deploys.",
            "Turn off TLS verification on the client.",
            "Deaktivieren Sie die MFA.",
            "Désactivez le pare-feu puis le WAF.",
        ),
        lookalikes=("Do not disable TLS verification.", "Check the TLS certificate expiry date."),
    ),
    ProseRule(
        name="SILENCES_ALERTS",
        outcome="WITHHELD",
        pattern=r"\b(silence|mute|suppress|ack(nowledge)?\s+and\s+close|close)\b[^.;]{0,30}?\b(alerts?|alarms?|pages?|incident)\b",
        examples=("Silence the alert for 24 hours.", "Close the incident; this is expected."),
        lookalikes=("Check which alert fired first.",),
    ),
    ProseRule(
        name="CREDENTIALS_MOVED",
        outcome="WITHHELD",
        pattern=(
            r"\b(paste|share|send|(?<!-x )post(?!\s+(https?:|/))|email|e-mail|upload|print|echo|"
            r"copy|publish|give|tell|teilen|senden|envoy\w*|partag\w*|comparte\w*|envía\w*)"
            r"(?=\s)[^.;]{0,60}?\b(passwords?|"
            r"passphrase|credentials?|tokens?|api[- ]keys?|secrets?|private\s+keys?|otp|"
            r"passwort|mot\s+de\s+passe|contraseña|kennwort)\b"
        ),
        examples=(
            "Paste the broker password into the public channel.",
            "Send the API key to support@vendor.example.",
            "Envoyez le mot de passe à l'équipe.",
        ),
        lookalikes=(
            "Rotate the broker password after the incident.",
            "curl -X POST --user '$USERNAME:$PASSWORD' $API_URL --data",
            'curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://x',
        ),
    ),
    ProseRule(
        name="DESTROYS_DATA",
        outcome="WITHHELD",
        pattern=(
            r"\b(delete|drop|wipe|purge|truncate|destroy|erase|flush|format|remove|löschen|"
            r"supprime\w*|borra\w*|elimina\w*)\b[^.;]{0,30}?\b(database|db|tables?|schema|volumes?|"
            r"data|bucket|backups?|disks?|cluster|namespace|all\s+keys|cache|logs?|index(es)?|"
            r"datenbank|données|datos)\b"
        ),
        examples=(
            "Delete the database volume and restore from scratch.",
            "Flush the cache on every node.",
            "Löschen Sie die Datenbank.",
        ),
        lookalikes=("Never drop the table by hand.", "Check free space on the data volume."),
    ),
    ProseRule(
        name="INSTALLS_SOFTWARE",
        outcome="WITHHELD",
        pattern=r"\b(install|download|run\s+the\s+script|execute\s+the\s+script|curl\s+and\s+run|pip\s+install|npm\s+install)\b",
        examples=("Install the vendor's diagnostic agent from their site.",),
        lookalikes=("Check the installed version in the pod.",),
    ),
    ProseRule(
        name="GRANTS_ACCESS",
        outcome="WITHHELD",
        pattern=(
            r"\b(grant|give|add|make)\b[^.;]{0,40}?\b(admin\w*|root|superuser|public|allusers|"
            r"administratoraccess|everyone|world[- ]readable|owner)\b|\ballusers\b|"
            r"\badministratoraccess\b|\bchmod\s+777\b"
        ),
        examples=("Grant the service account AdministratorAccess.", "Make the bucket public."),
        lookalikes=("Check which role the service account has.",),
    ),
    ProseRule(
        name="DISMISSES_INCIDENT",
        outcome="WITHHELD",
        pattern=r"\b(not\s+an\s+incident|no\s+action\s+(is\s+)?(needed|required)|ignore\s+(the|this|these|all)\b|stand\s+down)",
        examples=("This is not an incident; no action needed.", "Ignore the errors."),
        lookalikes=("Check whether the errors are new.",),
    ),
    # ------------------------------------------------------------------ changes
    ProseRule(
        name="CHANGE",
        outcome="CHANGE",
        pattern=(
            r"\b(revert\w*|roll\s*back|rollback|undo|restart\w*|redeploy|re-deploy\w*|scale\w*|"
            r"rotate|renew|raise|lower|increase|decrease|reduce|pin|replace|fail\s*over|drain|"
            r"cordon|trigger|apply|set|change|resize|restore|replay|unseal|free|extend|kill|"
            r"block|freeze|push|refresh|fix|move|requeue|re-?queue|resend|rebuild|reindex|promote|"
            r"switch|update|edit|add|remove|delete|evict|reset|bump|upgrade|downgrade|deploy|"
            r"enable|disable|unsubscribe|migrate|zurücksetzen|neu\s+starten|redémarr\w*|annul\w*|"
            r"revertir|reinicia\w*)\b"
        ),
        examples=(
            "Revert CHG-4821 in config-service.",
            "Restart the pods with the known-good value.",
            "Raise maximum-pool-size back to 40.",
            "Die Pods neu starten.",
            "Only after the fix: move the messages from the dead-letter queue back.",
        ),
        lookalikes=("Check the pool stats.",),
    ),
    # ------------------------------------------------------------------ checks
    ProseRule(
        name="CHECK",
        outcome="DIAGNOSTIC",
        pattern=(
            r"\b(check|confirm|compare|look|count|read|verify|find|review|inspect|watch|"
            r"monitor|identify|list|note|measure|correlate|search|query|match|see|expect|"
            r"page|escalate|declare|notify|open\s+a\s+(ticket|bug)|prüfe\w*|überprüf\w*|"
            r"vérifi\w*|verifica\w*|comprueb\w*|comprobar)\b"
        ),
        examples=(
            "Confirm the pool stats show waiting=0.",
            "Compare the first error with deployed_at.",
            "Page the database on-call.",
            "Vérifiez les journaux du service.",
        ),
        lookalikes=("Pool size lowered by a config change.",),
    ),
)
