"""The redaction table: every rule, in the order the engine applies it, with its examples.

Each :class:`~harness.redaction.Rule` names what it takes, the placeholder it writes, the
:class:`~harness.redaction.Gate` a text must pass before its matcher runs, and inputs it must
change (``examples``) and must leave alone (``lookalikes``); ``tests/harness/redaction`` walks
the table and checks every rule against its own examples. :data:`ENGINE` applies the table.

Order matters where one rule's output is another's input: escaped pairs are judged first (on
their decoded reading), structures before the ``key=value`` rule (which would take a piece of
them), keyed secrets before e-mail addresses and numbers, and token runs, hosts, addresses and
pods last, so that a placeholder never splits what an earlier rule would have taken whole.
"""

from __future__ import annotations

from harness.redaction._addresses import (
    SPELLED_EMAIL_GATE,
    emails,
    pct_emails,
    spelled_emails,
    url_userinfo,
    userinfo,
)
from harness.redaction._classes import (
    LABELLED_HOST_GATE,
    LOGIN_PAIR_WORDS,
    SPACED_KEY_GATE,
    SPLIT_LINE_GATE,
    labelled_hosts,
    login_pairs,
    set_to_values,
    spaced_keys,
    split_line_values,
    value_copies,
)
from harness.redaction._commands import (
    CLI_WORDS,
    ORACLE_WORDS,
    PROGRAMS,
    PROTOCOL_GATE,
    cli_credentials,
    oracle_logins,
    protocol_credentials,
    smtp_logins,
)
from harness.redaction._encoded import ENCODED_GATE, encoded_pairs
from harness.redaction._engine import Engine, Gate, Rule
from harness.redaction._hosts import (
    DASHED_GATE,
    cloud_hosts,
    daemonset_pods,
    internal_hosts,
    ipv4_addresses,
    ipv6_addresses,
    pids,
    pod_keys,
)
from harness.redaction._keyed import FLAG_START, flags, key_values, pct_keys
from harness.redaction._numbers import (
    EIGHT_DIGITS,
    FIVE_MAC_SEPARATORS,
    THIRTEEN_DIGITS,
    TWO_DOTS,
    cards,
    cisco_mac_addresses,
    ibans,
    international_phones,
    mac_addresses,
    parenthesised_phones,
    plain_phones,
    ssns,
)
from harness.redaction._placeholders import EMAIL, HOST, IP, PID, POD, SECRET
from harness.redaction._prose import CJK_KEYS, cjk_prose, prose_for, prose_use_as
from harness.redaction._runs import glued_tails, token_runs
from harness.redaction._shapes import INTERNAL_HOST_SUFFIXES, IPV4_GATE, IPV6_GATE
from harness.redaction._sql import ORM_WORDS, SQL_WORDS, orm_binds, sql_spans
from harness.redaction._structured import (
    BUNDLER_GATE,
    CODE_GATE,
    FLAG_ITEM_GATE,
    LOGIN_WORDS,
    OAUTH_GATE,
    PGPASS_GATE,
    YAML_BLOCK_GATE,
    bundler_credentials,
    code_assignments,
    cookies,
    flag_items,
    login_calls,
    name_value_pairs,
    oauth_codes,
    pgpass_lines,
    private_keys,
    xml_values,
    yaml_blocks,
)

__all__ = ["ENGINE", "RULES"]


def _escaped_pairs(text: str) -> str:
    # The decoded reading is redacted by the whole table (this rule included: an escape may
    # hide another), then mapped back onto the escaped text.
    return encoded_pairs(text, ENGINE.line)


RULES: tuple[Rule, ...] = (
    Rule(
        id="escaped-pair",
        replacement=SECRET,
        gate=Gate(words=(("%", "\\", "&"),), pattern=ENCODED_GATE),
        rewrite=_escaped_pairs,
        description="A pair behind escaped separators or quotes (JSON \\u003d, %3D, &quot;): "
        "the table runs on the decoded reading, and each placeholder it writes there covers "
        "the escaped span it stands for (so it may write any placeholder).",
        examples=(
            '{"log":"retry with db_password\\u003dQuillmoor58 host\\u003ddb"}',
            "GET /sso?return=%2Fhome%3Fsession_token%3DGlenrock2025%26tab%3D1 302",
            "<pre>&quot;db_password&quot;: &quot;Saltmarsh62&quot;</pre>",
            "state=%252Fcb%253Faccess_token%253DMarlowe8841%2526x%253D2",
        ),
        lookalikes=(
            '{"msg":"cart\\u003d3 items total\\u003d59.90 currency\\u003dEUR"}',
            "next=%2Forders%3Fstatus%3Dshipped%26token%3Dexpired",
            "<td>&quot;status&quot;: &quot;ok&quot;, &quot;items&quot;: 3</td>",
        ),
    ),
    Rule(
        id="private-key",
        replacement=SECRET,
        gate=Gate(words=(("BEGIN", "PuTTY-User-Key-File-"),)),
        rewrite=private_keys,
        spans_lines=True,
        description="A PEM, SSH2 or PuTTY private key, up to its END line or the end of the "
        "text. The gate is the pattern's own condition: it cannot match without an upper-case "
        "BEGIN or the PuTTY header.",
        examples=(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n"
            "-----END RSA PRIVATE KEY-----\nok",
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: key\nP2/56wAAAi4AAAA3aWYtbW9k\n"
            "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
            "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 1\n"
            "AAABAQCQy5VYz9kNqpQ\nPrivate-MAC: 8f0e1d2c3b4a59687766554433221100aabbccdd",
            "key file: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        ),
        lookalikes=(
            "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkq\n"
            "-----END CERTIFICATE-----",
            "-----BEGIN PUBLIC KEY-----",
            "BEGIN TRANSACTION; ---- batch 7 of 12",
        ),
    ),
    Rule(
        id="sql-literal",
        replacement="?",
        gate=Gate(lower=(SQL_WORDS,)),
        rewrite=sql_spans,
        spans_lines=True,
        description="String and number literals of SQL statements (DML, DCL, password "
        "procedures), over lines while a literal is open or the statement goes on; a bare "
        "password after IDENTIFIED BY becomes <SECRET>.",
        examples=(
            "slow query: SELECT * FROM orders WHERE email = 'a@b.com' AND total > 42.5 LIMIT 10",
            "UPDATE accounts SET balance = -10 WHERE id = 7",
            "CREATE USER 'app'@'%' IDENTIFIED BY 'Dcl#Secret1';",
            "SELECT *\nFROM accounts\nWHERE pin = '8842' AND owner = 'Ms Hidden'",
        ),
        lookalikes=(
            "SELECT id, status FROM orders WHERE status = ? LIMIT ?",
            "please select a user from the list",
            "update the password in the vault, then restart",
        ),
    ),
    Rule(
        id="orm-bind",
        replacement="?",
        gate=Gate(words=(ORM_WORDS,)),
        rewrite=orm_binds,
        description="Bind values ORMs log beside their SQL: Hibernate, MyBatis, Spring JDBC, "
        "Rails, Django.",
        examples=(
            "o.h.type.descriptor.sql.BasicBinder - binding parameter [2] as [VARCHAR] - [HibP4ss!]",
            "extracted value ([password2_3_] : [VARCHAR]) - [Extr4cted!]",
            "DEBUG c.e.UserMapper.insert - ==> Parameters: bob(String), S3cretB(String)",
            "Setting SQL statement parameter value: column index 1, parameter value [Spr1ngPw], "
            "value class [java.lang.String]",
            'User Load (0.4ms)  SELECT "users".* FROM "users" WHERE "users"."email" = $1  '
            '[["email", "carol@corp.io"], ["token", "RailsT0k"]]',
        ),
        lookalikes=(
            "DEBUG c.e.UserMapper.insert - ==> Preparing: INSERT INTO users (name) VALUES (?)",
            "o.h.type.descriptor.sql.BasicBinder - binding parameter [2] as [VARCHAR]",
            "Task tasks.sync[8f3c] received args=() kwargs={}",
        ),
    ),
    Rule(
        id="cli-password",
        replacement=SECRET,
        gate=Gate(words=(" -",), lower=(CLI_WORDS,), pattern=PROGRAMS),
        rewrite=cli_credentials,
        description="Passwords given to known tools on their command line (mysql -pX, "
        "sshpass -p X, docker login -p X, a password piped to --password-stdin, curl -uuser:X).",
        examples=(
            "mysql -uroot -pCl1Secret shop",
            "exec: sshpass -p 'SshP4ss!' ssh deploy@web-01",
            "+ podman login -u deployer -p Wrenfield#12 registry.corp.example",
            "echo Harrowgate77 | skopeo login -u ci --password-stdin quay.io",
            "curl -s -uadmin:Cobbleton31 https://nexus/service/rest",
        ),
        lookalikes=(
            "mkdir -p /var/lib/app && ssh -p 22 host",
            "docker run -p 8080:80 nginx",
            "echo $REGISTRY_TOKEN | docker login ghcr.io -u ci --password-stdin",
            "mysql -p shop",
        ),
    ),
    Rule(
        id="oracle-login",
        replacement=SECRET,
        gate=Gate(words=("/",), lower=(ORACLE_WORDS,)),
        rewrite=oracle_logins,
        description="Oracle's user/password@service in its JDBC URLs, on its tools' command "
        "lines and after CONNECT, userid= or RMAN's target.",
        examples=(
            "datasource url=jdbc:oracle:thin:billing/Kestrel#204@//ora-prod:1521/BILL",
            "$ sqlplus -s -L hr/Ambergate31@PDB1 @nightly.sql",
            "rman target / catalog rcat/Bramble77@catdb",
            "SQL> CONNECT app_owner/Windle42x@orclpdb",
        ),
        lookalikes=(
            "sqlplus / as sysdba @startup.sql",
            "unable to connect to api/v1 upstream",
            "SQL> connect hr/$HR_PASSWORD@pdb1",
        ),
    ),
    Rule(
        id="protocol-credential",
        replacement=SECRET,
        gate=Gate(lower=(("auth", "login"),), pattern=PROTOCOL_GATE),
        rewrite=protocol_credentials,
        description='A password in a protocol trace: Redis "AUTH" "X", IMAP a1 LOGIN bob X, '
        "SASL AUTH PLAIN <base64>. The gate is the pattern's three forms (AUTH or LOGIN, or a "
        'quoted "auth" in any case), behind a cheaper test of the lower-cased text.',
        examples=(
            '1733212800.5 [0 10.2.0.7:6379] "AUTH" "Lindenhof42x"',
            '1733212800.5 [0 lua] "auth" "svc-cache" "Corvid-Harbor-77"',
            "a17 LOGIN ops@example.com Meadow-Gate-19",
            "C: AUTH PLAIN AGNpAFB3OXgh",
        ),
        lookalikes=(
            '"AUTH" "invalid"',
            "2026-11-02 14:03:11 LOGIN alice from web-2",
            "ERR AUTH failed: WRONGPASS invalid username-password pair",
        ),
    ),
    Rule(
        id="oauth-code",
        replacement=SECRET,
        gate=Gate(lower=("code=",), pattern=OAUTH_GATE),
        rewrite=oauth_codes,
        description="An OAuth authorization code in a callback URL (beside state=, or under a "
        "path that names the flow): whoever reads it can trade it for tokens.",
        examples=(
            "GET /oauth2/callback?code=Qm9vdHN0cmFwNzc&state=a81 HTTP/1.1",
            "GET /cb?state=z9k2&code=4zTqWw8xLp0v HTTP/2.0",
            "302 Location: https://app.example/signin-oidc?code=LmNoP7q8rS",
        ),
        lookalikes=(
            "GET /api/countries?code=US&page=2 HTTP/1.1",
            "process exited with code=137 (OOMKilled)",
            "GET /oauth/callback?error=access_denied&state=a81 HTTP/1.1",
        ),
    ),
    Rule(
        id="bundler-credential",
        replacement=SECRET,
        gate=Gate(words=("BUNDLE_",), pattern=BUNDLER_GATE),
        rewrite=bundler_credentials,
        description="Bundler's per-host credentials (BUNDLE_GEMS__EXAMPLE__COM=user:X).",
        examples=(
            "BUNDLE_GEMS__CONTRIBSYS__COM=0a1b2c3d:Lindenhof42x",
            'export BUNDLE_RUBYGEMS__PKG__GITHUB__COM="ci-bot:Corvid-Harbor-77"',
        ),
        lookalikes=(
            "BUNDLE_PATH=vendor/bundle BUNDLE_JOBS=4",
            'export BUNDLE_GEMS__EXAMPLE__COM="ci-bot:${GEMS_TOKEN}"',
        ),
    ),
    Rule(
        id="pgpass-line",
        replacement=SECRET,
        gate=Gate(words=(":",), pattern=PGPASS_GATE),
        rewrite=pgpass_lines,
        description="A .pgpass line (host:port:database:user:password), the password by position.",
        examples=(
            "db-primary.internal:5432:shop:app:Meadow-Gate-19",
            "*:*:*:replicator:tall-oak-42x",
        ),
        lookalikes=(
            "checkout-api:8080:v2:live:ok",
            "localhost:5432:*:postgres:*",
            "14:05:03 db:5432:shop:app:Meadow-Gate-19",
        ),
    ),
    Rule(
        id="login-call",
        replacement=SECRET,
        gate=Gate(words=("(",), lower=(LOGIN_WORDS,), pattern=CODE_GATE),
        rewrite=login_calls,
        description='The password argument of a login call: login("app", "X"), '
        "auth('app', 'X'), HTTPBasicAuth, simple_bind_s.",
        examples=(
            'smtp.login("alerts@example.com", "Mx8vQ2pLk7")',
            "client.auth('app', 'hunter2-Qx7')",
            'requests.get(url, auth=HTTPBasicAuth("svc", "Pq4Wz9Lm2x"))',
            'ldap.simple_bind_s("cn=admin,dc=corp", "Ld4pPw9Xz")',
        ),
        lookalikes=(
            'log.info("login(%s, %s)", user, attempts)',
            'login("bob", "")',
            "session.login(user, password)",
        ),
    ),
    Rule(
        id="code-assignment",
        replacement=SECRET,
        gate=Gate(words=(("(", "["),), hint=True, pattern=CODE_GATE),
        rewrite=code_assignments,
        description='A secret set in code: props.put("password", "X"), '
        'os.environ["API_TOKEN"] = "X", setPassword("X").',
        examples=(
            'props.put("db.password", "Lindenhof42x");',
            'System.setProperty("javax.net.ssl.trustStorePassword", "Corvid-77x")',
            'os.environ["STRIPE_API_KEY"] = "Meadow-Gate-19"',
            'client.setSecretKey("quiet-river-88")',
        ),
        lookalikes=(
            'map.put("region", "eu-west-1");',
            'log.info("password", "changed for user %s", user)',
            'props.put("password.policy", "strict")',
        ),
    ),
    Rule(
        id="yaml-block",
        replacement=SECRET,
        gate=Gate(words=("\n",), hint=True, pattern=YAML_BLOCK_GATE),
        rewrite=yaml_blocks,
        spans_lines=True,
        description="A secret's value on the lines after its key: a YAML block scalar "
        "(password: | or >-) at any depth, an INI value continued, a shell line continuation.",
        examples=(
            "password: |\n  Bl0ckScalar!\n  SecondLine99\nuser: bob",
            "db:\n  password: >-\n    s3cr3tPassw0rd\n  host: db-1\n",
            "export DB_PASSWORD=\\\n  Zx8Vn3Qm6L\n",
            "[db]\napi_key =\n\tKp4Wz7Lm2Q\n",
        ),
        lookalikes=(
            "db:\n  host: db-1\n  pool: |\n    max=40\n",
            "password_policy: |\n  min length 12\n",
            "token_ttl =\n    3600\n",
        ),
    ),
    Rule(
        id="name-value",
        replacement=SECRET,
        gate=Gate(lower=("value",), hint=True),
        rewrite=name_value_pairs,
        spans_lines=True,
        description="A name and its value in separate fields: a JSON or YAML name/value pair, "
        "a Kubernetes env entry, a JSON Patch operation's path and value, in either order.",
        examples=(
            '{"name": "DB_PASSWORD", "value": "Js0nPa1r!"}',
            "env:\n- name: DB_PASSWORD\n  value: K8sEnvS3cret",
            '{"value": "Rev3rsed0rder", "name": "password"}',
            '[{"op": "replace", "path": "/password", "value": "s3cr3tPassw0rd"}]',
        ),
        lookalikes=(
            '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": '
            '"password"}}}',
            '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
            '[{"op": "replace", "path": "/spec/tokenTTL", "value": 3600}]',
        ),
    ),
    Rule(
        id="split-line-value",
        replacement=SECRET,
        gate=Gate(pattern=SPLIT_LINE_GATE, hint=True),
        rewrite=split_line_values,
        spans_lines=True,
        description="A secret key that ends its line and its value alone on the next line "
        "(a wrapped log line, a form dump): with any separator and indentation.",
        examples=(
            "password:\nhunter22",
            "db.password =\n    Wr4pped!Value",
            "トークン：\nabc123def456",
        ),
        lookalikes=(
            "password:\n  required: true",
            "password:\n- one\n- two",
            "password:\n\nnext section",
        ),
    ),
    Rule(
        id="xml-value",
        replacement=SECRET,
        gate=Gate(words=(("</", "/>"),), hint=True),
        rewrite=xml_values,
        spans_lines=True,
        description="An XML element named for a secret, an entry whose name attribute names "
        "one, name/value attribute pairs and sibling name and value elements.",
        examples=(
            "<password>XmlEl3ment!</password>",
            '<entry key="password">EntryV4lue</entry>',
            '<property name="db.password" value="Pr0pAttr!"/>',
            "<property>\n  <name>dfs.web.authentication.secret</name>\n"
            "  <value>Rivermoor7x</value>\n</property>",
        ),
        lookalikes=(
            "<property><name>hive.metastore.db.password</name><value>${HIVE_DB_PASS}</value></property>",
            "<password-policy>strict</password-policy>",
            '<property name="db.password.minLength" value="12"/>',
        ),
    ),
    Rule(
        id="flag-item",
        replacement=SECRET,
        gate=Gate(words=("-",), hint=True, pattern=FLAG_ITEM_GATE),
        rewrite=flag_items,
        spans_lines=True,
        description="A secret's flag and its value as two items of a list: [--db-password, X], "
        "a YAML list over lines, a JSON array over lines.",
        examples=(
            "args: [--db-password, Zq8Wx3Vn7p, --verbose]",
            "args:\n  - --user\n  - app\n  - --password\n  - Kc7Vn2Qx9L\n",
            '"args": [\n  "--token",\n  "Tq5Lm8Wz2X"\n]',
        ),
        lookalikes=(
            "args: [--port, 8080, --password-file, /run/secrets/db]",
            "args:\n  - --user\n  - app\n  - --port\n  - 5432\n",
            "args: [--token-ttl, 3600]",
        ),
    ),
    Rule(
        id="smtp-login",
        replacement=SECRET,
        gate=Gate(lower=("auth", "login")),
        rewrite=smtp_logins,
        spans_lines=True,
        description="The base64 password line of an SMTP AUTH LOGIN exchange, over lines.",
        examples=(
            "C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: b3Bz\nS: 334 UGFzc3dvcmQ6\n"
            "C: V2lsbG93NzchQg==\n",
            "send: 'AUTH LOGIN b3BzQGV4YW1wbGUuY29t\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\n"
            "send: 'aHVudGVyMg==\\r\\n'\n",
            "S: 220 mx.example.com ESMTP\nC: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: YWxlcnRz\n"
            "S: 334 UGFzc3dvcmQ6\nC: UzNjcmV0IQ==\nS: 235 2.7.0 Authentication successful",
        ),
        lookalikes=(
            "AUTH LOGIN failed for user bob\nretrying in 5s",
            "auth login ok\n2026-11-02 INFO done",
            "C: AUTH LOGIN",
        ),
    ),
    Rule(
        id="cookie",
        replacement=SECRET,
        gate=Gate(lower=("cookie",), hint=True),
        rewrite=cookies,
        description="Every value of a Cookie header (or curl --cookie), the first of Set-Cookie.",
        examples=(
            "Cookie: _ga=GA1.2.33; sessionid=Sess10nAbc; csrftoken=Csrf7Zx9",
            "Set-Cookie: session=SetC00kie9x; Path=/; HttpOnly; Secure",
            '{"headers": {"Cookie": "a=Js0nC00k; b=Bb77xx"}}',
            "curl --cookie 'auth=CurlC00kie' https://x.io",
        ),
        lookalikes=(
            "cookie_policy=strict samesite=lax",
            "Set-Cookie header missing on 302",
            "cookie consent banner shown to user",
        ),
    ),
    Rule(
        id="secret-flag",
        replacement=SECRET,
        gate=Gate(words=("-",), hint=True, pattern=FLAG_START),
        rewrite=flags,
        description="A command-line flag that names a secret (--password X, --token=X) and "
        "curl's -u user:X, where a flag starts a word.",
        examples=(
            "mysqldump --password hunter2 orders",
            "curl -u admin:pa55word https://x.io",
            "curl --user=admin:CurlEq9 https://api.example.com",
            "deploy --api-key=Zk4nWq8Lp2 --region eu",
        ),
        lookalikes=(
            "args --password-file /run/secrets/db",
            "curl -u $USER:$TOKEN https://x.io",
            "deploy --token-ttl 3600",
        ),
    ),
    Rule(
        id="spaced-key",
        replacement=SECRET,
        gate=Gate(pattern=SPACED_KEY_GATE),
        rewrite=spaced_keys,
        description="A secret key spelled with a space between its letters (p a s s w o r d=X), "
        "with an ASCII or a no-break space.",
        examples=(
            "p a s s w o r d=hunter22",
            "t o k e n: abc123def456",
            "P A S S W O R D\u00a0=\u00a0Hunter22!",
        ),
        lookalikes=(
            "a b c d=1234",
            "p a s s w o r d=expired",
        ),
    ),
    Rule(
        id="value-copy",
        replacement=SECRET,
        gate=Gate(hint=True),
        rewrite=value_copies,
        description="A secret-keyed value and every other copy of it in the same text: the "
        "confirmation (new password: X, confirm: X), a retype, a quote, a URL that repeats it.",
        examples=(
            "new password: Xyz12345, confirm: Xyz12345",
            "password=Tr0ub4dor&3 (retype Tr0ub4dor&3)",
            "token=abc123def456 sent to https://hook.example/cb?t=abc123def456",
        ),
        lookalikes=(
            "password: ok, status: ok",
            "token=expired user=bob expired",
        ),
    ),
    Rule(
        id="key-value",
        replacement=SECRET,
        gate=Gate(hint=True),
        rewrite=key_values,
        description="The value of a secret-named key in any spelling or language: key=value, "
        'key: value, "key": "value", key := value, key => value, a tab, a bracketed or '
        "wrapped value, an Authorization header's credential, a passphrase of words.",
        examples=(
            "password=hunter2 user=bob",
            '{"password": "hunter2", "user": "bob"}',
            "Authorization: Bearer abc.def.ghi",
            "用户登录失败 密码=Hunter2024! 用户=张三",
            "pass\u200bword=ZeroW1dth!",
            "passphrase=correct horse battery staple",
            # A kebab-case value after a value noun, or stated with a copula, is a value.
            "password correct-horse-battery-staple",
            "the secret is correct-horse-battery-staple",
        ),
        lookalikes=(
            "token=expired user=bob",
            # Right after an object noun (a secret, a token, an auth command group), a
            # kebab-case word is the object's name or a subcommand.
            "gcloud auth print-access-token",
            "kubectl get secret db-credentials -o yaml",
            "vault token lookup-self",
            "rotate the secret checkout-db-password in vault",
            "password: !ENV ${DB_PASSWORD}",
            # A variable named like a key is a reference, in any shell's syntax.
            "curl --user $USER:$PASS https://api.example.com/v1/health",
            "curl -u ${API_USER}:${API_TOKEN} https://api.example.com/v1/health",
            "mysql -u %DB_USER% -p%DB_PASSWORD% -h db",
            "Invoke-RestMethod -Headers @{Authorization=$env:TOKEN} https://api.example.com",
            "at com.example.checkout.TokenService.validate(TokenService.java:42)",
            "max_tokens=1024 temperature=0.2",
        ),
    ),
    Rule(
        id="prose-cjk",
        replacement=SECRET,
        gate=Gate(words=(CJK_KEYS,), hint=True),
        rewrite=cjk_prose,
        description="A key glued to its value by a particle in Chinese, Japanese or Korean "
        "(密码是X, パスワードはXです). The gate names the keys the pattern needs.",
        examples=(
            "初始密码是Qm8xPanda",
            "新しいパスワードはSakura2099です",
            "임시 비밀번호는 Hangang55! 입니다",
        ),
        lookalikes=(
            "密码错误，请重试",
            "パスワードは8文字以上です",
        ),
    ),
    Rule(
        id="prose-for",
        replacement=SECRET,
        gate=Gate(lower=(" for ",), hint=True),
        rewrite=prose_for,
        description="Words between a key and its value: password for bob is X.",
        examples=(
            "Password for user alice has been set to Orchid#903",
            "API token for svc-billing is Zt9wQ4mPx2",
        ),
        lookalikes=(
            "the token for user bob is expired",
            "password for bob2 was reset",
        ),
    ),
    Rule(
        id="prose-use-as",
        replacement=SECRET,
        gate=Gate(lower=("use ", " as "), hint=True),
        rewrite=prose_use_as,
        description="A value before its key: use X as the password.",
        examples=(
            "please use Copperleaf71 as the temporary password",
            "use Tarnwick#31 as your new passphrase",
        ),
        lookalikes=(
            "use bob2 as the username",
            "use the default as the password",
        ),
    ),
    Rule(
        id="set-to",
        replacement=SECRET,
        gate=Gate(lower=(" to ",), hint=True),
        rewrite=set_to_values,
        description="The value a secret is set to in prose: set password to X, changed the "
        "admin password for bob to X, rotated token to be X.",
        examples=(
            "set password to hunter22",
            "Changed the admin password for bob to 'S3cure!x'",
            "rotated the API token to be tk_9f8e7d6c5b",
        ),
        lookalikes=(
            "set password to expire in 90 days",
            "set timeout to 30s",
            "changed password policy to strict",
        ),
    ),
    Rule(
        id="login-pair",
        replacement=SECRET,
        gate=Gate(lower=(LOGIN_PAIR_WORDS,)),
        rewrite=login_pairs,
        description="The password of a user/password pair after a login word (login "
        "admin/X, logged in as root/X, credentials: svc/X); the user stays.",
        examples=(
            "login admin/hunter22 failed",
            "logged in as root/Tr0ub4dor&3",
            "credentials: svc_app/Qw3rty!99",
        ),
        lookalikes=(
            "connect to orders/v2 failed",
            "login page/index loaded",
            "connected ledger/payments-2024",
        ),
    ),
    Rule(
        id="percent-key",
        replacement=SECRET,
        gate=Gate(words=("%",)),
        rewrite=pct_keys,
        description="A secret's key written with percent escapes (pass%77ord=X), judged decoded.",
        examples=(
            "GET /login?user=bob&pass%77ord=Enc0dedKey",
            "callback?api%5Fkey=Enc4Underscore9",
            "form body: %70assword=FirstHex8",
        ),
        lookalikes=(
            "GET /search?q=%22blue%20shoes%22%26size%3D42&page=2 HTTP/1.1 200",
            "next%5Fpage=2",
            "GET /list?page%5Fsize=20&sort=asc",
        ),
    ),
    Rule(
        id="percent-email",
        replacement=EMAIL,
        gate=Gate(words=("%40",)),
        rewrite=pct_emails,
        description="A percent-encoded e-mail address (alice%40example.com).",
        examples=(
            "to=alice%40example.com&x=1",
            "mail from alice%40example.com",
        ),
        lookalikes=(
            "discount=15%40off",
            "GET /users/%40me/settings",
        ),
    ),
    Rule(
        id="url-userinfo",
        replacement=SECRET,
        gate=Gate(words=("@", "://")),
        rewrite=url_userinfo,
        description="user:password@ in a URL or DSN with a scheme (postgres://, jdbc:mysql://).",
        examples=(
            "url=jdbc:mysql://app:S3cret@db.prod.internal:3306/orders",
            "postgres://app%40corp:Pct%21Secret@db:5432/x",
            "redis://:p%40ss%3Aw0rd@cache:6379/0",
        ),
        lookalikes=(
            "clone ssh://git@github.com/org/repo.git",
            "GET https://api.example.com/v1/users/bob@example.com",
        ),
    ),
    Rule(
        id="dsn-userinfo",
        replacement=SECRET,
        gate=Gate(words=("@", ":")),
        rewrite=userinfo,
        description="user:password@ without a scheme: Go DSNs (user:pass@tcp(host)/db) and "
        "user:pass@host.",
        examples=(
            "dsn=app:G0Dsn!pw@tcp(db.prod.internal:3306)/shop?parseTime=true",
            "sql.Open(mysql, svc:UnixS0ck@unix(/var/run/mysqld.sock)/orders)",
            "mysql dsn reporter:Rep0rt#1@/analytics",
        ),
        lookalikes=(
            "dsn=app:$DB_PASSWORD@tcp(db:3306)/shop",
            "mailto:bob@example.com",
            "ERROR 1045 (28000): Access denied for user 'root'@'localhost'",
        ),
    ),
    Rule(
        id="email",
        replacement=EMAIL,
        gate=Gate(words=("@",)),
        rewrite=emails,
        description="E-mail addresses, a quoted local part included.",
        examples=(
            "notify ops.team@example.com",
            'from "john.doe"@example.com',
            "reply-to 'carol@example.org'",
        ),
        lookalikes=(
            "lodash@4.17.21 installed",
            "mention @alice in #ops",
            "image nginx@sha256 pulled",
        ),
    ),
    Rule(
        id="spelled-email",
        replacement=EMAIL,
        gate=Gate(pattern=SPELLED_EMAIL_GATE),
        rewrite=spelled_emails,
        description="An address spelled out for harvesters to miss: alice [at] example [dot] "
        "com; written bare, every separator must be 'dot' and the domain a common one.",
        examples=(
            "mail alice [at] example [dot] com now",
            "contact: j.doe(at)example.org",
            "Bob.Smith AT corp DOT co DOT uk wrote",
            "reply to jane <at> example <dot> io.",
        ),
        lookalikes=(
            "look at this dot product",
            "failed at db dot primary",
            "queue [at] capacity",
        ),
    ),
    Rule(
        id="payment-card",
        replacement=SECRET,
        gate=Gate(pattern=THIRTEEN_DIGITS),
        rewrite=cards,
        description="Card numbers: 13-19 digits, grouped or not, with an issuer prefix, that "
        "pass Luhn.",
        examples=(
            "charge card=4111 1111 1111 1111 amount=10",
            "pan 5500-0000-0000-0004 declined",
            "amex 3782 822463 10005 ok",
            "tok for 6011000990139424 created",
        ),
        lookalikes=(
            "order 1730556303123456789 shipped",
            "charge card=4111 1111 1111 1112 amount=10",
        ),
    ),
    Rule(
        id="ssn",
        replacement=SECRET,
        gate=Gate(words=("-",), pattern=EIGHT_DIGITS),
        rewrite=ssns,
        description="US social security numbers (123-45-6789), never-issued areas excepted.",
        examples=("applicant 123-45-6789 approved",),
        lookalikes=(
            "release 2024-11-02 deployed build 1234-56-7890x",
            "order 12-345-6789 shipped",
            "ticket 912-34-5678 closed",
        ),
    ),
    Rule(
        id="iban",
        replacement=SECRET,
        gate=Gate(pattern=EIGHT_DIGITS),
        rewrite=ibans,
        description="IBANs that pass ISO 7064 mod 97, grouped by four or not.",
        examples=(
            "iban=DE89370400440532013000",
            "payout to GB82 WEST 1234 5698 7654 32 failed",
            "FR14 2004 1010 0505 0001 3M02 606",
        ),
        lookalikes=(
            "iban=DE89370400440532013001",
            "route AB12 3456 7890 1234 5678 created",
        ),
    ),
    Rule(
        id="phone-international",
        replacement=SECRET,
        gate=Gate(words=("+",), pattern=EIGHT_DIGITS),
        rewrite=international_phones,
        description="Phone numbers with a + country code and 8-15 digits.",
        examples=(
            "sms to +1 415 555 2671 queued",
            "phone=+14155552671",
            "Tel.: +49 30 1234567",
        ),
        lookalikes=(
            "heap grew +1234567 bytes at 14:05:03",
            "score +12 after 12345678 games",
        ),
    ),
    Rule(
        id="phone-parenthesised",
        replacement=SECRET,
        gate=Gate(words=("(",), pattern=EIGHT_DIGITS),
        rewrite=parenthesised_phones,
        description="North American numbers with the area code in brackets: (415) 555-0132.",
        examples=("call (415) 555-0132 back", "callback (212) 555.0199 requested"),
        lookalikes=(
            "code (415) 555 0132 sent",
            "failed (4150) 555-0132 times",
        ),
    ),
    Rule(
        id="phone-plain",
        replacement=SECRET,
        gate=Gate(words=(("-", "."),), pattern=EIGHT_DIGITS),
        rewrite=plain_phones,
        description="North American numbers in groups of three, three and four: 415-555-0132.",
        examples=(
            "sms 415.555.2671 sent",
            "call 415-555-0132 back",
        ),
        lookalikes=(
            "version 415.555.2671.1 released",
            "release 2024-11-02 deployed build 1234-56-7890x",
        ),
    ),
    Rule(
        id="mac-address",
        replacement=HOST,
        gate=Gate(pattern=FIVE_MAC_SEPARATORS),
        rewrite=mac_addresses,
        description="MAC addresses in pairs of hex digits (00:1A:2B:3C:4D:5E, 00-1a-…): machine "
        "identifiers. The gate counts colons and dashes together, as the pattern does.",
        examples=(
            "dhcp lease 00:1A:2B:3C:4D:5E -> host",
            "mac=00-1a-2b-3c-4d-5f",
        ),
        lookalikes=(
            "at 2024-01-02 12:33:44.123 job 1-2-3 done",
            "fingerprint 00:1A:2B:3C:4D:5E:6F:70",
        ),
    ),
    Rule(
        id="cisco-mac",
        replacement=HOST,
        gate=Gate(pattern=TWO_DOTS),
        rewrite=cisco_mac_addresses,
        description="MAC addresses as Cisco writes them (001a.2b3c.4d60).",
        examples=("cisco port 001a.2b3c.4d60 up", "arp 0050.56ab.cdef Vlan10"),
        lookalikes=(
            "version 1234.5678.9012 built",
            "cisco port 001a.2b3c.4d60.77 up",
        ),
    ),
    Rule(
        id="token-run",
        replacement=SECRET,
        gate=Gate(),
        rewrite=token_runs,
        description="A long run of token characters that is a prefixed token (ghp_, AKIA, a JWT, "
        "...) or random, unless its shape or its label names an identifier (a digest, a trace "
        "or commit id, an AWS or Stripe id, a ULID, a resource name, a path); a pod name inside "
        "a run becomes <POD>.",
        examples=(
            "got AKIAIOSFODNN7EXAMPLE from env",
            "token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "alice@example.com/ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "cached Zq8vLw3nPx7TqGh4KHGh2cy5aTmFxR3B==4E1B2C3D ok",
            "legacy slack xoxo-523423-234243-234233-e039d02840a0b9379c",
            "slack token xoxb-abcdefghijklmnop",
        ),
        lookalikes=(
            "request_id=203db13e-70c7-462b-9a3d-bf32640cb0be status=500 latency_ms=1834",
            "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 took 5003 ms",
            "Located environment: name=checkout-api, label=main, "
            "version=907a70c31012f037b64ce4228c38fb2918f135d2",
            "TerminateInstances i-0a1b2c3d4e5f67890 in vpc-1a2b3c4d subnet-0fedcba9876543210",
            "Node gke-prod-default-pool-1a2b3c4d-xk9z status is now: NodeNotReady",
            # A Slack prefix that is a word: a legacy xoxo- token starts with a number.
            "GET /images/2018-250-xoxo-indieweb-1.jpg 200",
        ),
    ),
    Rule(
        id="glued-tail",
        replacement=SECRET,
        gate=Gate(words=(SECRET,)),
        rewrite=glued_tails,
        description="Token characters glued to the end of a <SECRET>: the token went on past "
        "what a rule masked (a checksum after a token's padding).",
        examples=(
            "using <SECRET>E5F6A7B8 for sync",
            "signed with <SECRET>4E1B2C3D.x9",
        ),
        lookalikes=(
            "Authorization: Bearer <SECRET>",
            "password=<SECRET> user=bob",
        ),
    ),
    Rule(
        id="cloud-host",
        replacement=HOST,
        gate=Gate(words=("-",), pattern=DASHED_GATE),
        rewrite=cloud_hosts,
        description="Cloud host names that spell an IP: ip-10-0-3-17, "
        "ec2-54-12-34-56.compute-1.amazonaws.com, 10-0-3-20.nip.io.",
        examples=(
            "host ip-10-0-3-17.ec2.internal down",
            "host ec2-54-12-34-56.compute-1.amazonaws.com",
            "via 10-0-3-20.nip.io",
        ),
        lookalikes=(
            "image tag v1-2-3-4567 pushed",
            "release 2024-11-02 deployed",
        ),
    ),
    Rule(
        id="labelled-host",
        replacement=HOST,
        gate=Gate(lower=(LABELLED_HOST_GATE,)),
        rewrite=labelled_hosts,
        description="Host names with an internal label inside a public domain "
        "(db01.internal.example.com, build.corp.acme.io); a reversed package name stays.",
        examples=(
            "connect db01.internal.example.com:5432 refused",
            "GET https://build.corp.acme.io/job/42",
            "ldap.intranet.example.org unreachable",
        ),
        lookalikes=(
            "at jdk.internal.misc.Unsafe.park(Native Method)",
            "com.acme.internal.io.Reader failed",
            "api.example.com returned 503",
        ),
    ),
    Rule(
        id="internal-host",
        replacement=HOST,
        gate=Gate(lower=(INTERNAL_HOST_SUFFIXES,)),
        rewrite=internal_hosts,
        description="Internal host names (.internal, .local, .corp, .consul, ...); a Kubernetes "
        "service name stays, a StatefulSet pod's name in front of one becomes <POD>.",
        examples=(
            "resolve redis-01.cache.corp failed",
            "resolve DB-01.PROD.INTERNAL",
            "ssh kafka-3.broker.eu-west-1.prod.internal",
        ),
        lookalikes=(
            "GET http://inventory-service.shop.svc.cluster.local:8080/v1/stock/SKU-10962",
            "loaded config.local.yaml",
        ),
    ),
    Rule(
        id="ipv6",
        replacement=IP,
        gate=Gate(words=(":",), pattern=IPV6_GATE),
        rewrite=ipv6_addresses,
        description="IPv6 addresses, IPv4-embedded forms and a bracketed port included.",
        examples=(
            "peer [2001:db8::1]:443 and fe80::1ff:fe23:4567:890a",
            "from ::ffff:10.0.3.17 port 22",
            "nat64 64:ff9b::192.0.2.33 reached",
        ),
        lookalikes=(
            "14:05:03.123 checkout-api started",
            "std::vector<int> resized",
        ),
    ),
    Rule(
        id="ipv4",
        replacement=IP,
        gate=Gate(words=(".",), pattern=IPV4_GATE),
        rewrite=ipv4_addresses,
        description="IPv4 addresses with their port, leading zeros included; not inside a "
        "version or a longer dotted number.",
        examples=(
            "peer 10.0.3.17:8080 reset",
            "peer 010.000.003.017 reset",
            "client 192.168.001.020:443",
        ),
        lookalikes=(
            "version 1.2.3.4.5 installed",
            "build 300.1.2.3 done",
        ),
    ),
    Rule(
        id="pid",
        replacement=PID,
        gate=Gate(lower=(("pid", "["),)),
        rewrite=pids,
        description="Process ids: pid=123, PID 77, sshd[1234]:.",
        examples=(
            "pid=4242 exited; PID 77 started",
            "sshd[1234]: accepted",
        ),
        lookalikes=(
            "items[3] => 42 items[4] => 7",
            "rapid 200 responses",
        ),
    ),
    Rule(
        id="pod-key",
        replacement=POD,
        gate=Gate(lower=("pod",)),
        rewrite=pod_keys,
        description='A pod named by its key: pod=payments-0, pods "kafka-broker-2", pod/web-3.',
        examples=(
            "pod=payments-0 restarted",
            'pods "kafka-broker-2" not found',
            "kubectl logs pod/web-3 -n shop",
            '"pod": "mysql-0", "ns": "db"',
        ),
        lookalikes=(
            "pod restarted 3 times",
            "podman run nginx",
        ),
    ),
    Rule(
        id="daemonset-pod",
        replacement=POD,
        gate=Gate(words=("-",)),
        rewrite=daemonset_pods,
        description="A DaemonSet (or bare ReplicaSet) pod: a name and Kubernetes' 5-character "
        "random suffix (fluentd-x7k2p).",
        examples=(
            "node-exporter-9bq4z restarted",
            "calico-node-7x9kd not ready",
            "kube-proxy-z4mlb Running",
        ),
        lookalikes=(
            "Scaled down replica set checkout-api-7d9f8b6c5d to 0",
            "thread pool-2-thread-1 started",
        ),
    ),
)
"""Every redaction rule, in the order the engine applies it."""

ENGINE = Engine(RULES)
"""The engine that applies :data:`RULES` (its line pass is cached)."""
