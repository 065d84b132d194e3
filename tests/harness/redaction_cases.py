"""Hostile redaction inputs, one list per class of issue 8 §2 (shared by tests and reports).

Each case is a realistic log or config line in one shape of its class and the strings that
must not survive redaction. They were written as an attacker would: the same secret in
another language, another spelling, another structure. ``BENIGN`` holds ordinary lines of
the same shapes that must come through unchanged (precision is part of the contract).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["BENIGN", "CASES", "Case"]


class Case(NamedTuple):
    """A text and the strings (secrets, identifiers) that must not survive its redaction."""

    text: str
    gone: tuple[str, ...]


def _c(text: str, *gone: str) -> Case:
    return Case(text, gone)


CASES: dict[str, list[Case]] = {
    "foreign key names": [
        _c("用户登录失败 密码=Hunter2024! 用户=张三", "Hunter2024!"),
        _c("数据库配置: 口令: Xk9mQ2vL8p", "Xk9mQ2vL8p"),
        _c('{"用户名": "admin", "密码": "Zh0ngGuo#88"}', "Zh0ngGuo#88"),
        _c("API密钥=9f8e7d6c5b4a3928ab", "9f8e7d6c5b4a3928ab"),
        _c("令牌: tq84Nv0aLmZ2xW", "tq84Nv0aLmZ2xW"),
        _c("ログイン失敗 パスワード: Tokyo#2024pw", "Tokyo#2024pw"),
        _c("パスワード=sakura77 ユーザー=tanaka", "sakura77"),
        _c("アクセストークン: Jp9xQ2mLk4vN8r", "Jp9xQ2mLk4vN8r"),
        _c("暗証番号: 4821", "4821"),
        _c("Anmeldung fehlgeschlagen: Passwort=Geheim123! Benutzer=mueller", "Geheim123!"),
        _c("kennwort: Sommer2024", "Sommer2024"),
        _c("Zugangsschlüssel=AbCd9876EfGh5432", "AbCd9876EfGh5432"),
        _c("DB_PASSWORT=Winter#77", "Winter#77"),
        _c("ошибка входа: пароль=Qwerty123 пользователь=ivan", "Qwerty123"),
        _c("Пароль: Moskva2024!", "Moskva2024!"),
        _c("токен=Zx81Lm0Qp7Vw3", "Zx81Lm0Qp7Vw3"),
        _c("секретный_ключ: s8Df7Gh6Jk5L", "s8Df7Gh6Jk5L"),
        _c("échec de connexion mot de passe: Soleil2024!", "Soleil2024!"),
        _c("mot_de_passe=Paris#1789", "Paris#1789"),
        _c("motdepasse: Baguette99", "Baguette99"),
        _c("jeton=Fr4nc3T0k3nXy", "Fr4nc3T0k3nXy"),
        _c("clé secrète: Cl3Secr3te!", "Cl3Secr3te!"),
        _c("error de acceso contraseña=Madrid2024! usuario=garcia", "Madrid2024!"),
        _c("Contraseña: Sevilla#55", "Sevilla#55"),
        _c("contrasena=Toledo2023", "Toledo2023"),
        _c("clave: Barcelona1992x", "Barcelona1992x"),
        _c("senha=Brasil#2014", "Brasil#2014"),
    ],
    "key spelling variants": [
        _c("PassWord=Tr0ub4dor&3", "Tr0ub4dor&3"),
        _c("userPassWord: Hx7#kLm2pQ", "Hx7#kLm2pQ"),
        _c("PASS_WORD=Aut0mat1c!", "Aut0mat1c!"),
        _c("pass_word=Blue42Sky", "Blue42Sky"),
        _c("Pass-Word: Gr33nL34f", "Gr33nL34f"),
        _c("p4ssw0rd=Rainy#Day9", "Rainy#Day9"),
        _c("passw0rd: M0nday!Blues", "M0nday!Blues"),
        _c("pa55word=Qu1ck$ilver", "Qu1ck$ilver"),
        _c("DB_PA55WD=Str0ngOne", "Str0ngOne"),
        _c("s3cr3t=Vq8Lm2Nx0Pz", "Vq8Lm2Nx0Pz"),
        _c("client_secr3t: Jk3Lm9Wq2Er", "Jk3Lm9Wq2Er"),
        _c("t0ken=ab12CD34ef56GH", "ab12CD34ef56GH"),
        _c("auth_t0k3n=Zz9Yy8Xx7Ww6", "Zz9Yy8Xx7Ww6"),
        _c("ApiK3y=kq2Wm8Xv4Lp0", "kq2Wm8Xv4Lp0"),
        _c("pa$$word=Dollar$ign1", "Dollar$ign1"),
        _c("p@ssword=AtSign#22", "AtSign#22"),
        _c("Passwd2=Pw2Second!x", "Pw2Second!x"),
        _c("p_a_s_s_w_o_r_d=Spl1tUp!", "Spl1tUp!"),
        _c("pwd_b64=aHVudGVyMjIh", "aHVudGVyMjIh"),
        _c(
            "PASSWORD_HASH=$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "R9h/cIPz0gi.URNNX3kh2OPST9",
        ),
    ],
    "unicode separators and zero-width": [
        _c("password：Fu11W1dthC0lon", "Fu11W1dthC0lon"),
        _c("password＝Fu11W1dthEq", "Fu11W1dthEq"),
        _c("ｐａｓｓｗｏｒｄ=W1deLetters", "W1deLetters"),
        _c("password\u00a0=\u00a0NbspHunter2", "NbspHunter2"),
        _c("password:\u00a0Nbsp0nly9", "Nbsp0nly9"),
        _c("密码：\u3000Id30Space!", "Id30Space!"),
        _c("api_key\u3000=\u3000IdeoSpace9x8y", "IdeoSpace9x8y"),
        _c("pass\u200bword=ZeroW1dth!", "ZeroW1dth!"),
        _c("p\u200cassword: Zwnj2024x", "Zwnj2024x"),
        _c("se\u200dcret=ZwjS3cr3t", "ZwjS3cr3t"),
        _c("to\u2060ken=WordJ01ner", "WordJ01ner"),
        _c("\ufeffpassword=B0mFirst!", "B0mFirst!"),
        _c("pass\u00adword=S0ftHyph3n", "S0ftHyph3n"),
        _c("api\u200b_\u200bkey=Zw2Sep4Key9", "Zw2Sep4Key9"),
    ],
    "values split by structure": [
        _c('{"name": "DB_PASSWORD", "value": "Js0nPa1r!"}', "Js0nPa1r!"),
        _c('{"Name":"api_token","Value":"tkn_8Hq2Lm9Xv"}', "tkn_8Hq2Lm9Xv"),
        _c('{"key": "stripe_secret", "type": "string", "value": "StrIpe2024x"}', "StrIpe2024x"),
        _c('{"ParameterKey": "DbPassword", "ParameterValue": "CfnP4ram!"}', "CfnP4ram!"),
        _c('{"value": "Rev3rsed0rder", "name": "password"}', "Rev3rsed0rder"),
        _c("env:\n- name: DB_PASSWORD\n  value: K8sEnvS3cret", "K8sEnvS3cret"),
        _c('- name: REDIS_AUTH_TOKEN\n  value: "rEd1sT0ken99"', "rEd1sT0ken99"),
        _c("  - {name: API_KEY, value: fl0wStyl3Key}", "fl0wStyl3Key"),
        _c(
            "password: |\n  Bl0ckScalar!\n  SecondLine99\nuser: bob", "Bl0ckScalar!", "SecondLine99"
        ),
        _c(
            "private_key: >-\n    F0ldedKeyMaterial\n    MoreKeyBytes77",
            "F0ldedKeyMaterial",
            "MoreKeyBytes77",
        ),
        _c("<password>XmlEl3ment!</password>", "XmlEl3ment!"),
        _c("<db:Password>NsXml2024</db:Password>", "NsXml2024"),
        _c('<entry key="password">EntryV4lue</entry>', "EntryV4lue"),
        _c('<property name="db.password" value="Pr0pAttr!"/>', "Pr0pAttr!"),
        _c('<add key="ApiKey" value="AppS3tting9x"/>', "AppS3tting9x"),
        _c("<password><![CDATA[Cd4taSecret]]></password>", "Cd4taSecret"),
        _c('<user name="bob" password="AttrPw2024"/>', "AttrPw2024"),
        _c("DB_PASSWORD: c3VwM3JzM2NyM3Q=", "c3VwM3JzM2NyM3Q="),
        _c("data:\n  password: aHVudGVyMjI=\n  username: YWRtaW4=", "aHVudGVyMjI="),
        _c('"client_secret":"dGhpcyBpcyBzZWNyZXQ="', "dGhpcyBpcyBzZWNyZXQ="),
    ],
    "sql dcl": [
        _c("CREATE USER 'app'@'%' IDENTIFIED BY 'Dcl#Secret1';", "Dcl#Secret1"),
        _c("ALTER USER 'root'@'localhost' IDENTIFIED BY \"Alt3rRoot!\"", "Alt3rRoot!"),
        _c("GRANT ALL ON shop.* TO 'svc'@'10.%' IDENTIFIED BY 'Gr4ntPw'", "Gr4ntPw"),
        _c("ALTER USER scott IDENTIFIED BY tiger2024", "tiger2024"),
        _c("SET PASSWORD FOR 'bob'@'%' = PASSWORD('S3tPassw0rd')", "S3tPassw0rd"),
        _c("SET PASSWORD = 'N3wOwnPw'", "N3wOwnPw"),
        _c("ALTER ROLE reporting WITH PASSWORD 'PgR0le!pw'", "PgR0le!pw"),
        _c("CREATE ROLE etl LOGIN ENCRYPTED PASSWORD 'md5a1b2c3d4e5f6'", "md5a1b2c3d4e5f6"),
        _c("CREATE LOGIN app WITH PASSWORD = 'MsSql#2024'", "MsSql#2024"),
        _c("EXEC sp_password 'OldPw1', 'NewPw2x', 'sa'", "OldPw1", "NewPw2x"),
        _c("EXEC sp_addlogin 'report', 'AddL0gin!'", "AddL0gin!"),
        _c("CALL mysql.rds_set_master_password('RdsM4ster')", "RdsM4ster"),
    ],
    "sql literals": [
        _c('SELECT id FROM users WHERE password = "DqL1teral"', "DqL1teral"),
        _c('UPDATE users SET api_token = "Upd8Tok3n" WHERE id = 7', "Upd8Tok3n"),
        _c('{"sql": "SELECT * FROM u WHERE secret = \\"Esc4ped\\""}', "Esc4ped"),
        _c("INSERT INTO notes (body) VALUES ('first line\nsecond MultiL1ne!')", "MultiL1ne!"),
        _c(
            "SELECT *\nFROM accounts\nWHERE pin = '8842' AND owner = 'Ms Hidden'",
            "8842",
            "Ms Hidden",
        ),
        _c("select name from t where note like 'x\n   y Sp4nning z'", "Sp4nning"),
    ],
    "orm bind parameters": [
        _c(
            "o.h.type.descriptor.sql.BasicBinder - binding parameter [2] as [VARCHAR] - [HibP4ss!]",
            "HibP4ss!",
        ),
        _c(
            "TRACE org.hibernate.orm.jdbc.bind - binding parameter (1:VARCHAR) <- [alice@shop.io]",
            "alice@shop.io",
        ),
        _c("binding parameter [1] as [VARCHAR] - [Hib3rnate6x]", "Hib3rnate6x"),
        _c("extracted value ([password2_3_] : [VARCHAR]) - [Extr4cted!]", "Extr4cted!"),
        _c("==> Parameters: alice(String), MyB4tisPw(String), 42(Integer)", "MyB4tisPw"),
        _c("DEBUG c.e.UserMapper.insert - ==> Parameters: bob(String), S3cretB(String)", "S3cretB"),
        _c("<==        Row: 1, admin, 5f4dcc3b5aa765d61d8327deb882cf99", "5f4dcc3b5aa765d61d8327"),
        _c(
            "Setting SQL statement parameter value: column index 1, parameter value [Spr1ngPw], "
            "value class [java.lang.String]",
            "Spr1ngPw",
        ),
        _c(
            'User Load (0.4ms)  SELECT "users".* FROM "users" WHERE "users"."email" = $1  '
            '[["email", "carol@corp.io"], ["token", "RailsT0k"]]',
            "carol@corp.io",
            "RailsT0k",
        ),
    ],
    "go dsn": [
        _c("dsn=app:G0Dsn!pw@tcp(db.prod.internal:3306)/shop?parseTime=true", "G0Dsn!pw"),
        _c("connecting root:R00tPw99@tcp(10.0.3.17:3306)/", "R00tPw99", "10.0.3.17"),
        _c("sql.Open(mysql, svc:UnixS0ck@unix(/var/run/mysqld.sock)/orders)", "UnixS0ck"),
        _c('"DATABASE_DSN": "reader:Re4derPw@tcp(mysql:3306)/app"', "Re4derPw"),
        _c("mysql dsn reporter:Rep0rt#1@/analytics", "Rep0rt#1"),
    ],
    "token after placeholder": [
        _c(
            "alice@example.com/ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "ghp_A1b2C3d4E5f6G7h8I9j0"
        ),
        _c("bob@corp.io:xoxb-123456789012-abcdefABCDEF1234", "xoxb-123456789012"),
        _c("10.0.3.17/AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "10.0.3.17"),
        _c(
            "ip-10-0-3-17.ec2.internal:sk_live_51OuEMLAlTWGaDypq4P5cu", "sk_live_51OuEMLAlTWGaDypq4"
        ),
        _c("ops@corp.example.netsecret=hunter22", "hunter22", "ops@corp.example.net"),
        _c("a.b@c.dexoxb-1-token=abc123def456", "abc123def456", "a.b@c.de"),
        _c("carol@shop.io,glpat-Xy12Zw34Vu56Ts78Rq90", "glpat-Xy12Zw34Vu56Ts78Rq90"),
    ],
    "command-line credentials": [
        _c("mysql -uroot -pCl1Secret shop", "Cl1Secret"),
        _c("mysqldump -h db -u backup -p'Dump#2024' --all-databases", "Dump#2024"),
        _c("exec: sshpass -p 'SshP4ss!' ssh deploy@web-01", "SshP4ss!"),
        _c("sshpass -pInl1neSsh scp a b", "Inl1neSsh"),
        _c("curl --user=admin:CurlEq9 https://api.example.com", "CurlEq9"),
        _c("curl -u 'svc:Qu0tedPair' https://api.example.com", "Qu0tedPair"),
        _c("redis-cli -h cache -a R3disAuth! ping", "R3disAuth!"),
        _c("ldapsearch -x -D cn=admin,dc=corp -w LdapBind9 -b dc=corp", "LdapBind9"),
        _c("sqlcmd -S db -U sa -P MsSqlCmd#1 -Q select", "MsSqlCmd#1"),
        _c("openssl pkcs12 -in a.p12 -passin pass:P12Passin", "P12Passin"),
        _c("7z x backup.7z -pZipS3cret", "ZipS3cret"),
        _c("smbclient //fs/share -U alice%SmbPw2024", "SmbPw2024"),
    ],
    "key and value without separator": [
        _c("the password was Winter2024! for user bob", "Winter2024!"),
        _c("reset done, new password is Fl0wer#Pot", "Fl0wer#Pot"),
        _c("password\tT4bSep4rated\tbob", "T4bSep4rated"),
        _c("api_key\tTsvK3yValue99", "TsvK3yValue99"),
        _c("LDAP bind as cn=admin,dc=corp with credentials LdapCr3d!", "LdapCr3d!"),
        _c("java.naming.security.credentials Jnd1Secret", "Jnd1Secret"),
        _c("requirepass R3disConfPw", "R3disConfPw"),
        _c("rootpw {SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
        _c("Token ZqX8Lm2Pw9 rejected by upstream", "ZqX8Lm2Pw9"),
        _c("login failed for user admin with password 'Winter2026!'", "Winter2026!"),
        _c('requirepass "R3dis Quoted!"', "R3dis Quoted!"),
        _c("the password was `Bt1ck3dPw` yesterday", "Bt1ck3dPw"),
        _c("password 'correct horse battery staple' rejected", "horse battery staple"),
    ],
    "unquoted passphrase": [
        _c("passphrase=correct horse battery staple", "horse battery staple"),
        _c("password: my dog is named Rex", "dog is named Rex"),
        _c("WIFI_PASSWORD=blue sky over paris 1987", "sky over paris 1987"),
        _c("secret = open sesame please", "sesame please"),
    ],
    "template-like values": [
        _c("password={{Sup3rS3cret}}", "Sup3rS3cret"),
        _c("password=${DB_PASS:-Def4ultPw!}", "Def4ultPw!"),
        _c("token=<Xq9Lm2Vw8Zp>", "Xq9Lm2Vw8Zp"),
        _c("api_key=%(Pct9Secret4)s", "Pct9Secret4"),
        _c("secret=${Sh3llL00k}", "Sh3llL00k"),
        _c("password=[Br4cket3d!]", "Br4cket3d!"),
    ],
    "cookies": [
        _c(
            "Cookie: _ga=GA1.2.33; sessionid=Sess10nAbc; csrftoken=Csrf7Zx9",
            "Sess10nAbc",
            "Csrf7Zx9",
        ),
        _c("cookie: theme=dark; JSESSIONID=8F3A2B1C9D; remember_me=Rm8Yz2", "8F3A2B1C9D", "Rm8Yz2"),
        _c('-H "Cookie: sid=H3aderSid; cart=Cart9921"', "H3aderSid", "Cart9921"),
        _c("Set-Cookie: session=SetC00kie9x; Path=/; HttpOnly; Secure", "SetC00kie9x"),
        _c('{"headers": {"Cookie": "a=Js0nC00k; b=Bb77xx"}}', "Js0nC00k", "Bb77xx"),
        _c("curl --cookie 'auth=CurlC00kie' https://x.io", "CurlC00kie"),
    ],
    "percent-encoded": [
        _c("redis://:p%40ss%3Aw0rd@cache:6379/0", "p%40ss%3Aw0rd"),
        _c("postgres://app%40corp:Pct%21Secret@db:5432/x", "Pct%21Secret"),
        _c("GET /login?user=bob&pass%77ord=Enc0dedKey", "Enc0dedKey"),
        _c("callback?api%5Fkey=Enc4Underscore9", "Enc4Underscore9"),
        _c("form body: p%61ssword=HexLetter7", "HexLetter7"),
        _c("form body: %70assword=FirstHex8", "FirstHex8"),
        _c("to=alice%40example.com&x=1", "alice%40example.com"),
    ],
    "payment data": [
        _c("charge card=4111 1111 1111 1111 amount=10", "4111 1111 1111 1111"),
        _c("pan 5500-0000-0000-0004 declined", "5500-0000-0000-0004"),
        _c("card_number: 4012888888881881", "4012888888881881"),
        _c("amex 3782 822463 10005 ok", "3782 822463 10005"),
        _c("tok for 6011000990139424 created", "6011000990139424"),
        _c("cvv=123 exp=12/29", "cvv=123"),
        _c('{"cvc": "4471", "exp_month": 12}', "4471"),
        _c("security code 987 rejected", "987"),
    ],
    "personal identifiers": [
        _c("customer ssn 123-45-6789 verified", "123-45-6789"),
        _c("SSN: 078051120", "078051120"),
        _c("iban=DE89370400440532013000", "DE89370400440532013000"),
        _c("payout to GB82 WEST 1234 5698 7654 32 failed", "1234 5698 7654 32"),
        _c("FR14 2004 1010 0505 0001 3M02 606", "2004 1010 0505 0001"),
        _c("sms to +1 415 555 2671 queued", "415 555 2671"),
        _c("phone=+14155552671", "4155552671"),
        _c("call (415) 555-0132 back", "555-0132"),
        _c("Tel.: +49 30 1234567", "1234567"),
        _c("contact +33 1 23 45 67 89", "23 45 67 89"),
        _c("dhcp lease 00:1A:2B:3C:4D:5E -> host", "00:1A:2B:3C:4D:5E"),
        _c("mac=00-1a-2b-3c-4d-5f", "00-1a-2b-3c-4d-5f"),
        _c("cisco port 001a.2b3c.4d60 up", "001a.2b3c.4d60"),
    ],
    "identifier variants": [
        _c("peer 010.000.003.017 reset", "010.000.003.017"),
        _c("client 192.168.001.020:443", "192.168.001.020"),
        _c("from ::ffff:10.0.3.17 port 22", "10.0.3.17", "::ffff"),
        _c("nat64 64:ff9b::192.0.2.33 reached", "192.0.2.33", "64:ff9b"),
        _c("v6 2001:db8:1::10.0.3.18 up", "2001:db8:1", "10.0.3.18"),
        _c("[::ffff:10.0.3.19]:8443 closed", "10.0.3.19"),
        _c("host ec2-54-12-34-56.compute-1.amazonaws.com", "ec2-54-12-34-56", "54-12-34-56"),
        _c("node ip-172-31-5-9.eu-west-1.compute.internal", "ip-172-31-5-9", "172-31-5-9"),
        _c("via 10-0-3-20.nip.io", "10-0-3-20"),
        _c("resolve DB-01.PROD.INTERNAL", "DB-01.PROD.INTERNAL"),
        _c("resolve Redis-Primary.Cache.Corp timeout", "Redis-Primary.Cache.Corp"),
        _c("ssh kafka-3.broker.eu-west-1.prod.internal", "kafka-3.broker.eu-west-1.prod"),
        _c("mail from alice%40example.com", "alice%40example.com"),
        _c('from "john.doe"@example.com', "john.doe"),
        _c("reply-to 'carol@example.org'", "carol@example.org"),
        _c("pod fluentd-x7k2p evicted", "fluentd-x7k2p"),
        _c("node-exporter-9bq4z restarted", "node-exporter-9bq4z"),
        _c("pod=redis-0 ready", "redis-0"),
        _c('pods "kafka-broker-2" not found', "kafka-broker-2"),
        _c("Pod postgres-primary-1 OOMKilled", "postgres-primary-1"),
        _c('"pod": "mysql-0", "ns": "db"', "mysql-0"),
        _c("kubectl logs pod/web-3 -n shop", "web-3"),
        _c("web-0.nginx.shop.svc.cluster.local:80", "web-0"),
        _c(
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: key\nP2/56wAAAi4AAAA3aWYtbW9k\n"
            "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
            "P2/56wAAAi4AAAA3aWYtbW9k",
        ),
        _c(
            "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 1\n"
            "AAABAQCQy5VYz9kNqpQ\nPrivate-MAC: 8f0e1d2c3b4a59687766554433221100aabbccdd",
            "AAABAQCQy5VYz9kNqpQ",
            "8f0e1d2c3b4a59687766",
        ),
    ],
    "values wrapped in a list or object": [
        _c("map[Authorization:[Bearer s3cr3tT0kAbc]]", "s3cr3tT0kAbc"),
        _c("<QueryDict: {'username': ['bob'], 'password': ['Hunter2024']}>", "Hunter2024"),
        _c('{"password": {"sensitive": true, "value": "Hunter2024"}}', "Hunter2024"),
        _c("map[password:[Hunter2024]]", "Hunter2024"),
        _c("passwords: ['a1b2c3d4e5', 'f6g7h8j9']", "a1b2c3d4e5", "f6g7h8j9"),
        _c(
            "Field error in object 'user' on field 'password': rejected value [Hunter2024]; "
            "codes [Size.user.password]",
            "Hunter2024",
        ),
    ],
    "authorization schemes": [
        _c("Authorization: Splunk 1a2b3c4d-1111-2222-3333-444455556666", "444455556666"),
        _c("authorization: BEARER s3cr3tT0kAbc", "s3cr3tT0kAbc"),
        _c("Proxy-Authorization: NTLM TlRMTVNTUAABAAAA", "TlRMTVNTUAABAAAA"),
        _c("Authorization: ApiKey Hunter2024", "Hunter2024"),
        _c("Authorization: Custom9 abcDEF123456 next=1", "abcDEF123456"),
    ],
    "one-time codes and more key names": [
        _c("totp=482913", "482913"),
        _c("mfa_code=123456 user=bob", "123456"),
        _c("otp_code: 998877", "998877"),
        _c("recovery_codes: 8f3k-2m9x", "8f3k-2m9x"),
        _c("pswd=Hunter2024", "Hunter2024"),
        _c("hmac_key=supersecretvalue", "supersecretvalue"),
        _c("secret_id=ed0a642f-2acf-c2da-232f-1b21300d5f29", "1b21300d5f29"),
        _c("Ocp-Apim-Subscription-Key: Qx7p9Lm2", "Qx7p9Lm2"),
        _c("sessionid=9f8e7d6c5b4a39281706f5e4d3c2b1a0x", "9f8e7d6c5b4a3928"),
        _c("parola=Roma2024x", "Roma2024x"),
        _c("jelszó=Hunter2024", "Hunter2024"),
        # A "$" in front of a password does not make it a shell variable.
        _c("password=$Summer2024", "Summer2024"),
        _c('{"password": "$ecret123"}', "ecret123"),
    ],
    "xml name and value siblings": [
        _c(
            "<property><name>hive.metastore.db.password</name><value>Lindenhof42</value>"
            "</property>",
            "Lindenhof42",
        ),
        _c(
            "<property>\n  <name>dfs.web.authentication.secret</name>\n"
            "  <value>Rivermoor7x</value>\n</property>",
            "Rivermoor7x",
        ),
        _c(
            "<context-param><param-name>smtpPassword</param-name>"
            "<param-value>Stonebridge55</param-value></context-param>",
            "Stonebridge55",
        ),
        _c("<dict><key>api_token</key><string>Q7w!Rosegarden</string></dict>", "Rosegarden"),
        _c(
            "<entry><key>keystore.password</key><value><![CDATA[Pinecrest!9]]></value></entry>",
            "Pinecrest!9",
        ),
        _c(
            "<Parameter><Name>/staging/app/DB_PASS</Name><Type>SecureString</Type>"
            "<Value>Oakhollow2031</Value></Parameter>",
            "Oakhollow2031",
        ),
    ],
    "dotted keys qualified by their last component": [
        _c("fs.s3a.secret.key=Briarwood81", "Briarwood81"),
        _c("payments.api.key: Thornfield64", "Thornfield64"),
        _c("-Dtoken.signing.key=Elmstead2020 -jar app.jar", "Elmstead2020"),
        _c('"tls.private.key": "Ashcombe99"', "Ashcombe99"),
        _c("minio.access.key = Kestrelvale12", "Kestrelvale12"),
        _c("fs.azure.account.key.prodstore.blob.core.windows.net=Fernhill73", "Fernhill73"),
    ],
}

# Ordinary lines of the same shapes: nothing in them is sensitive, so nothing may change.
BENIGN: list[str] = [
    "password reset requested for user bob",
    "the password was changed by an administrator",
    "password 'expired' for user bob",
    'requirepass "$REDIS_PASSWORD"',
    "token is invalid or expired",
    "password is incorrect",
    "AuthFilter: request denied",
    "at com.example.checkout.TokenService.validate(TokenService.java:42)",
    "bypass cache for /api/v1/stock",
    "HikariPool-1 - Connection is not available, request timed out after 3000ms.",
    "GET /api/v1/orders/12345 200 35ms",
    "processed 4111 orders in 1111 ms",
    "order 1730556303123456789 shipped",
    "release 2024-11-02 deployed build 1234-56-7890x",
    "lodash@4.17.21 installed",
    "worker-3 picked job 42",
    "thread pool-2-thread-1 started",
    "GET http://inventory-service.shop.svc.cluster.local:8080/v1/stock/SKU-10962",
    "SELECT id, status FROM orders WHERE status = ? LIMIT ?",
    "mkdir -p /var/lib/app && ssh -p 22 host",
    "docker run -p 8080:80 nginx",
    "Passwort vergessen? Bitte wenden Sie sich an den Support",
    "用户登录成功",
    "cache hit key=stock:SKU-11554 ttl_s=300",
    "max_tokens=1024 temperature=0.2",
    "tokens=[] passwords: []",
    "password: (none)",
    "Field error in object 'user' on field 'email': rejected value [bob]; codes [x]",
    "session=expired user=bob",
    "session_id=42 user=bob",
    "Authorization: Bearer <SECRET>",
    "password=$DB_PASS user=$USER",
    "export PGPASSWORD=$POSTGRES_PASSWORD",
    # Hex identifiers labelled as what they are: evidence a diagnosis cites.
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 took 5003 ms",
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "deployed commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a to checkout-api",
    '"sha": "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a"',
    "X-Request-Id: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "14:05:03.123 checkout-api started in 2.5s on port 8080",
    "<property><name>dfs.replication</name><value>3</value></property>",
    "<context-param><param-name>contextConfigLocation</param-name>"
    "<param-value>/WEB-INF/app-context.xml</param-value></context-param>",
    "<dict><key>CFBundleName</key><string>Checkout</string></dict>",
    "<property><name>hive.metastore.db.password</name><value>${HIVE_DB_PASS}</value></property>",
    "kafka.partition.key=order_id cache.key=stock",
]
