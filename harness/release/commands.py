"""Dangerous commands: what a released next step may never tell an operator to run.

Three classes, each a pattern over the text as shown (:func:`~harness.release.readings.surface`):

- ``PIPE_TO_SHELL``: a download piped or substituted into an interpreter (``curl … | sudo
  bash``, ``eval "$(curl …)"``, PowerShell's ``iwr … | iex``);
- ``DESTROYS_DATA``: recursive deletes outside scratch directories, dropped or emptied tables,
  databases, indices and collections, flushed caches, formatted or overwritten disks,
  infrastructure torn down (IaC destroy, cloud CLI delete/terminate, Helm releases,
  Kubernetes workloads, services, secrets, nodes), force-pushed or deleted branches;
- ``DISABLES_SECURITY``: firewalls, SELinux/AppArmor and audit stopped, TLS or host-key
  verification turned off, world-writable or setuid permissions, passwordless sudo, open
  ingress to the world, reverse shells.

A command that is named only to warn against it ("never run DROP TABLE in production", "do
not disable the WAF") is not a recommendation: a match right after a negation (``do not``,
``never``, ``avoid``…, then at most two filler words such as "run" or "the") is skipped;
"don't hesitate to run …" is not a negation of the command. Scoped, reversible operations
stay released: deleting one pod (its controller replaces it), a scoped UPDATE or DELETE,
removing a single file, cleaning ``/tmp``.
"""

from __future__ import annotations

import re

from harness.release.readings import surface
from harness.release.rules import RuleBook, Rules

__all__ = ["PIPE_TO_SHELL", "dangerous_command"]

_I = re.IGNORECASE

# sudo with its options, or an interpreter by absolute path.
_SUDO = r"(sudo\s+(-\S+\s+)*)?"
_SHELL = r"(/usr)?(/s?bin/|/usr/bin/env\s+)?"
PIPE_TO_SHELL = Rules(
    r"\b(download|fetch)\s+\S*://\S+\s+(and|then)\s+(run|execute|install|launch)\b|"
    r"\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^|\n]{0,200}\|\s*(tee\s+\S+\s*\|\s*)?" + _SUDO
    + _SHELL + r"(env\s+)?(ba|z|k|da|fi)?sh\b|"
    r"\b(curl|wget)\b[^|\n]{0,200}\|\s*" + _SUDO + r"apt-key\s+add\b|"
    r"\b(curl|wget)\b[^\n]{0,200}?(&&|;)\s*(sudo\s+)?((ba|z)?sh|source|\.)\s+\S+\.sh\b|"
    r"\b(curl|wget)\b[^\n]{0,200}?(&&|;)\s*chmod\s+\+x\s+(\S+)\s*(&&|;)\s*(sudo\s+)?\S*/|"
    r"(\bbash|\bsh|(^|\s)\.)\s*(<<<\s*[\"']?\$\(|<\()\s*(curl|wget)\b|"
    r"\bexec\s*\(\s*(urllib\.request\.)?urlopen\(|\beval\s*\(\s*file_get_contents\(\s*['\"]https?:|"
    r"\bpowershell(\.exe)?\s+(-\w+\s+)*-e(nc|ncodedcommand)?\s+[a-z0-9+/=]{20,}|"
    r"\bnpx\s+https?://|\bpip3?\s+install\s+(\S+\s+)*(https?://|--trusted-host\b)|"
    r"\b(curl|wget)\b[^|\n]{0,200}\|\s*" + _SUDO + _SHELL + r"(python\d?|perl|ruby|node|php)\b|"
    r"\b((ba|z)?sh\s+(-c\s+)?|eval\s+|source\s+)[\"']?\s*(<\(|\$\()\s*(curl|wget)\b|"
    r"\bbase64\s+(-d|--decode)\b[^|;\n]{0,80}\|\s*" + _SUDO + r"(ba)?sh\b|"
    r"\b(iex|invoke-expression)\s*\(\s*\(?\s*(new-object|iwr|invoke-webrequest|irm|invoke-restmethod)|"
    r"\b(iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b[^|;\n]{0,200}\|\s*"
    r"(iex|invoke-expression)\b"
)  # fmt: skip


# Command-line options: short clusters and long options, with a value glued on by "=".
_OPTS = r"((-[a-z]+|--[\w-]+(=\S+)?)\s+)*"
# Options that take a separate value, as they lead a kubectl, aws or gcloud command.
_GLOBAL = r"((--?[\w-]+)([\s=]+(?!-)\S+)?\s+){0,4}"
# A path that is scratch space: removing under it loses nothing anyone keeps.
_SCRATCH = r"['\"]?(/var)?/tmp(/[\w.*{}$-]|\s|$)"
_KUBE_KINDS = (
    r"(deploy\w*|statefulsets?|sts|daemonsets?|ds|replicasets?|rs|services?|svc|secrets?|"
    r"configmaps?|cm|crds?|customresourcedefinitions?|persistentvolume\w*|nodes?|"
    r"clusterroles?|clusterrolebindings?|ns|namespaces?|pv|pvcs?|ingress\w*|networkpolic\w*|"
    r"netpol|psp|podsecuritypolic\w*|(validating|mutating)webhookconfiguration\w*)\b"
)
# SQL WHERE clauses that hold for every row.
_TAUTOLOGY = (
    r"(1|true|(?P<n>\w+)\s*=\s*(?P=n)|'(?P<w>\w*)'\s*=\s*'(?P=w)'|\w+\s+is\s+not\s+null|"
    r"\w*id\s*>=?\s*0|\d+\s*>\s*\d+)"
)

_DANGEROUS = RuleBook(
    (
        ("PIPE_TO_SHELL", PIPE_TO_SHELL),
        (
            "DESTROYS_DATA",
            Rules(
                # rm: recursive anywhere but scratch space; the root, a home or a glob at all.
                r"\brm\s+"
                + _OPTS
                + r"(-[a-z]*r[a-z]*|--recursive)\s+"
                + _OPTS
                + r"(?!-|"
                + _SCRATCH
                + r")\S|"
                r"\brm\s+" + _OPTS + r"['\"]?(/|~|\$home)/?\*?['\"]?(\s|;|$)|"
                r"\brm\s+" + _OPTS + r"(?!" + _SCRATCH + r")\S*/\*|--no-preserve-root\b|"
                r"\b(drop|truncate)\s+(table|database|schema|keyspace|index)\b|"
                r"\btruncate\s+(?!table\b)[\w.`\"]+\s*(;|$|restart\b|cascade\b|continue\b)|"
                r"\bdelete\s+from\s+[\w.`\"]+\s*(;|$|\)|--|#|limit\b)|"
                r"\bflush(all|db)\b|\bmkfs(\.\w+)?\b|\bdd\s+(\S+\s+)*of=/dev/(?!null\b)|"
                r"\b(lv|vg|pv)remove\b|\bwipefs\b|\bshred\b|"
                r"\bkubectl\s+"
                + _GLOBAL
                + r"delete\s+"
                + _GLOBAL
                + r"("
                + _KUBE_KINDS
                + r"|(-f|--filename)[\s=]|\S+\s+--all\b|--all\b|[^|;\n]*(--all-namespaces|\s-a)\b)|"
                r"\b(docker|podman)\s+(system\s+prune|volume\s+(rm|prune)|rm\s+(-[a-z]*f|--force))|"
                r"\b(docker[\s-])?compose\s+down\s+(\S+\s+)*(-v|--volumes)\b|"
                r"\bgit\s+push\s+(\S+\s+)*(--force|-f\b|--delete\b|-d\b|\+\S|:\S)|"
                r":\(\)\s*\{\s*:\|:&\s*\}\s*;|"
                # Infrastructure torn down.
                r"\b(terraform|terragrunt|pulumi|cdk)\s+(\S+\s+)*-?destroy\b|"
                r"\baws\s+" + _GLOBAL + r"s3\s+(rm\s+(\S+\s+)*--recursive\b|rb\b)|"
                r"\baws\s+" + _GLOBAL + r"[\w-]+\s+(delete|terminate)-[\w-]+|"
                r"\bgsutil\s+(-m\s+)?(rm\s+(\S+\s+)*-[a-z]*r|rb\b)|"
                r"\b(gcloud|az)\s+([\w-]+\s+){1,4}delete\b|"
                r"\bhelm\s+(uninstall|delete|del)\b|"
                r"\bkafka-topics(\.sh)?\s+(\S+\s+)*--delete\b|"
                # Document stores and search indices emptied.
                r"\bdropdatabase\s*\(|\bdb\.(\w+\.)?drop\s*\(|"
                r"\bdb\.\w+\.(deletemany|remove|updatemany)\s*\(\s*\{\s*\}|"
                r"\bcurl\s+(\S+\s+)*(-x\s*|--request\s+)delete\b[^|;\n]*(_all\b|\*|:9200/)|"
                r"(^|\n)delete\s+/[\w.*-]+\s*($|\n)|"
                # SQL that removes users, columns or objects, or rewrites or deletes every row.
                r"\bdrop\s+(owned\s+by|tablespace|view|column|collection)\b|"
                r"\balter\s+table\s+\S+\s+drop\b|"
                r"\bdrop\s+(user|role)\s+(if\s+exists\s+)?(['\"`]|[\w.]+\s*(;|$|,|@|\)))|"
                r"\b(delete\s+from\s+[\w.`\"]+|update\s+[\w.`\"]+\s+set\s+[^;\n]{0,200}?)\s+where\s+"
                + _TAUTOLOGY
                + r"\s*(;|$|\)|or\b|--|#|limit\b)|"
                r"\bupdate\s+[\w.`\"]+\s+set\s+[\w.`\"]+\s*=(?![^;\n]*\bwhere\b)[^;\n]*(;|$)|"
                # A database's own data directory, Windows and disk-level deletes, pools destroyed.
                r"\brm\s+"
                + _OPTS
                + r"(?!\S*\.(lock|pid|sock)(\s|$))\S*/var/lib/(mysql|postgresql|pgsql|redis|mongodb|etcd|kafka|"
                r"elasticsearch|cassandra|zookeeper|rabbitmq)\b|"
                r"\bremove-item\s+(\S+\s+)*-recurse\b|\brd\s+/s\b|\bdel\s+(/\w\s+)*/s\b|"
                r"\bformat\s+[a-z]:|\b(mke2fs|mkswap|blkdiscard)\s|\bsgdisk\s+(\S+\s+)*--zap|"
                r"\bparted\s+\S+\s+rm\b|\b(zpool|zfs)\s+destroy\b|\bmv\s+\S+\s+/dev/null\b|"
                r"\bcrontab\s+-r\b|\becho\s+[cbo]\s*>\s*/proc/sysrq-trigger|"
                # More SQL and database tooling that drops or purges.
                r"\bdrop\s+(trigger|function|procedure|extension|materialized\s+view|sequence|event|"
                r"type|domain)\b|\bdelete\s+\*\s+from\b|"
                r"\bpurge\s+(binary|master)\s+logs\b|\breset\s+(master|slave\s+all|binary\s+logs)\b|"
                r"\bdropdb\s+\w|\bmysqladmin\s+(\S+\s+)*drop\b|"
                r"\b(oc|k)\s+" + _GLOBAL + r"delete\s+" + _GLOBAL + r"(project|ns|namespaces?)\b|"
                r"\betcdctl\s+del\b[^\n]*--prefix|\bargocd\s+app\s+delete\b|\bflux\s+delete\b|"
                r"\b(eksctl|kind|k3d|minikube)\s+delete\s+cluster\b|\bschedule-key-deletion\b|"
                r"\baz\s+keyvault\s+purge\b|\bdoctl\s+([\w-]+\s+){1,3}delete\b|"
                r"\bs3cmd\s+((del|rm)\s+(\S+\s+)*--recursive|rb)\b|\bgh\s+repo\s+delete\b|"
                r"\bxargs\s+redis-cli\s+(-\S+\s+)*del\b|\bshutdown\s+nosave\b|"
                r"\bcluster\s+reset\s+hard\b|\bdebug\s+segfault\b|_delete_by_query\b|"
                r"\brabbitmqctl\s+(purge_queue|reset|force_reset|delete_queue|delete_vhost)\b|"
                # Every process killed; a whole filesystem or home directory searched and deleted.
                r"\bkill\s+-(9|kill|s\s+kill)\s+-1\b|"
                r"\bfind\s+(?!" + _SCRATCH + r")(/|~|\$home)\S*\s+(\S+\s+)*-delete\b"
            ),
        ),
        (
            "DISABLES_SECURITY",
            Rules(
                r"\bsetenforce\s+(0|permissive)\b|"
                r"\b(ufw|firewalld?|apparmor|selinux|auditd|falco)\b[^.\n]{0,20}"
                r"\b(disable|stop|off|down|kill)\b|"
                r"\b(systemctl|service)\s+(\S+\s+)*(disable|stop|mask|kill)\s+(\S+\s+)*"
                r"(firewalld|ufw|apparmor|auditd|falco|iptables|nftables|fail2ban|falcon-sensor|"
                r"osqueryd|wazuh-agent|clamav\w*)\b|"
                r"\b(disable|stop|kill|turn\s+off)\s+(the\s+)?(firewall(?!\s+rules?\b)|ufw|firewalld|"
                r"apparmor|selinux|auditd|antivirus|edr|waf|mfa|2fa|(tls|ssl)(?!\s*v?\d))\b|"
                r"\bip6?tables\s+(-t\s+\w+\s+)?(-f|--flush|-x|-p\s+\w+\s+accept)\b|"
                r"\bnft\s+flush\s+ruleset\b|"
                r"\bchmod\s+"
                + _OPTS
                + r"0?777\b|\bchmod\s+"
                + _OPTS
                + r"(a|o|ugo)\+[rx]*w[rwx]*\b|"
                r"\bchmod\s+" + _OPTS + r"[ugoa]*\+s\b|"
                # Certificate and host-key checks turned off.
                r"--no-verify\b|--insecure\b|--no-check-certificate\b|"
                r"\bcurl\s+(\S+\s+)*-[a-z]*k[a-z]*\b|insecure-skip-tls-verify\b|"
                r"\bverify\s*=\s*false\b|\bstrict_?host_?key_?checking\s*=?\s*no\b|"
                r"\bnode_tls_reject_unauthorized\s*=\s*['\"]?0|\bpythonhttpsverify\s*=\s*['\"]?0|"
                r"\bgit_ssl_no_verify\s*=\s*['\"]?(1|true)|\bhttp\.sslverify\s+(=\s*)?false\b|"
                r"\binsecure_?skip_?(tls_?)?verify\s*[:=]\s*true\b|"
                # Access opened up: passwordless root, skipped grants, the world let in.
                r"\bpasswd\s+-d\b|authorized_keys\b|\bnopasswd\s*:\s*all\b|"
                r"\bskip[-_]grant[-_]tables\b|\bgrant\s+all\s+(privileges\s+)?on\s+\*\.\*|"
                r"\bauthorize-security-group-ingress\b[^\n]*0\.0\.0\.0/0|"
                r"\b(nc|ncat|netcat)\s+(\S+\s+)*-[a-z]*e\b|\bsocat\b[^\n]*\bexec:|/dev/tcp/|"
                r"\bsudo\s+(su|-i|-s|bash|sh)\b|\bchown\s+-r\s+\S+\s+/(etc|usr|bin|sbin|lib|boot)?/?(\s|$)|"
                # Firewalls, endpoint protection and auditing switched off (more spellings).
                r"\bservice\s+(iptables|firewalld|ufw|auditd|apparmor)\s+stop\b|"
                r"\bufw\s+default\s+allow\b|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off\b|"
                r"\bset-mppreference\s+(\S+\s+)*-disable\w+\s+\$?true\b|"
                r"\bset-netfirewallprofile\b[^\n]*-enabled\s+\$?false\b|\bselinux\s*=\s*disabled\b|"
                r"\baa-(teardown|complain|disable)\b|\bauditctl\s+-e\s*0\b|"
                r"\bhistory\s+-c\b|\bunset\s+histfile\b|"
                r"\b(kill|pkill|killall)\s+(-\S+\s+)*(\$\(pgrep\s+)?(falco|auditd|osqueryd|"
                r"falcon-sensor|wazuh\w*|clamd|ossec\w*)\b|"
                r"\bvault\s+(secrets|auth|audit)\s+disable\b|\bcloudtrail\s+(stop-logging|delete-trail)\b|"
                # Permissions, logins and authentication opened.
                r"\bchmod\s+"
                + _OPTS
                + r"0?6[67][67]\s+/etc/|\bchmod\s+"
                + _OPTS
                + r"[2467][0-7]{3}\b|"
                r"\busermod\s+(\S+\s+)*-a?g\s+(sudo|wheel|root|admin)\b|"
                r"\bpermitrootlogin\s+yes\b|\bpasswordauthentication\s+yes\b|"
                r"\bcreate\s+clusterrolebinding\b[^\n]*cluster-admin\b|"
                r"\bconfig\s+set\s+(requirepass|protected-mode|dir|dbfilename|masterauth)\b|"
                r"\brequirepass\s+(to\s+)?(empty|\"\"|'')|"
                r"\b(password|identified\s+by)\s*=?\s*(''|\"\")(\s|;|$)|"
                r"\b(disable|turn\s+off)\s+(the\s+)?(authentication|auth|authorization|rbac|"
                r"access\s+control|csrf(\s+protection)?)\b|"
                r"\bauth_?enabled\s*[=:]\s*false\b|\bsecurity\.authorization\s*[=:]\s*disabled\b|"
                r"\b(add|open|allow|authori[sz]e)\b[^\n]{0,60}0\.0\.0\.0/0|0\.0\.0\.0/0\s+trust\b|"
                r"(source-ranges|cidr(-ip|-block)?|source-address-prefix(es)?)[=\s]+0\.0\.0\.0/0|"
                r"--acl\s+public-read|\bdestructive_requires_name\W+false\b|"
                r"--privileged\b|\s-v\s+/:/|/var/run/docker\.sock:|"
                r"\bsysctl\s+(-w\s+)?kernel\.randomize_va_space\s*=\s*0\b|"
                # Certificate checks off (more spellings).
                r"--trusted-host\b|\bstrict-ssl\s+false\b|\bssl_verify_mode\s+(to\s+)?(none|0|false)\b|"
                r"\b(turn\s+off|disable|skip)\s+(the\s+)?(certificate|cert|ssl|tls)\s+(validation|"
                r"verification|checks?)\b|\bgit\s+commit\s+(\S+\s+)*-[a-z]*n\b"
            ),
        ),
    )
)

# A command named to warn against it: a negation, then at most two words, then the match.
_NEGATED = re.compile(
    r"\b((do\s+not|don'?t|never|avoid|must\s+not|should\s+not|shouldn'?t|instead\s+of|"
    r"rather\s+than)\s+((run|running|use|using|execute|executing|issue|issuing|type|the|a|any)\s+)"
    r"{0,2}|(revert|undo)\s+(the\s+)?)[`'\"(]?$",
    _I,
)


def dangerous_command(text: str) -> str | None:
    """The first dangerous-command class ``text`` recommends, or None."""
    for reading in surface(text):
        for name, match in _DANGEROUS.matches(reading):
            if not _NEGATED.search(reading, max(0, match.start() - 60), match.start()):
                return name
    return None
