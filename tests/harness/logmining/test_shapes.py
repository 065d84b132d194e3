"""Variables by shape and by place: each lands in one template; constants stay constants."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.logmining import MinerConfig, TemplateMiner, mask_content, template_id_of
from harness.redaction import Redactor

# A shape, values of it, and the event they are put in ({} is the value).
SHAPES: dict[str, tuple[list[str], str]] = {
    "fqdn": (
        ["worker-17.cluster.example.com", "alpha.prod.example.org", "db.cluster.internal",
         "ip-10-0-3-7.ec2.internal", "kilo.eu-west.example.net"],
        "Heartbeat from {} missed, marking node as stale",
    ),
    "host:port": (
        ["alpha.prod.example.org:8020", "10.0.0.7:443", "[2001:db8::1]:8443", "node042:50010",
         "db-primary.corp.example.com:5432"],
        "Connection to {} refused",
    ),
    "ip": (
        ["10.251.43.21", "192.168.0.1", "fe80::1ff:fe23:4567:890a", "2001:db8::8a2e:370:7334"],
        "peer {} joined",
    ),
    "url": (
        ["https://api.example.com/v1/items?id=3&sort=asc", "hdfs://nn.example.com:8020/user/x",
         "http://10.0.0.1:8080/", "s3://bucket/key/part-0000.parquet"],
        "Fetching {} for tenant",
    ),
    "path": (
        ["/var/log/app.log", "/data/disk3/subdir/blk_1", "~/notes.txt", "src/main/java/Foo.java",
         "/etc/hosts"],
        "Opened {} for reading",
    ),
    "windows path": (
        ["C:\\Users\\alice\\AppData\\Local\\x.dll", "\\\\fileserver\\share\\dept",
         "D:\\Data\\plan.xml"],
        "Failed to open file {} with error 5",
    ),
    "hex": (["0x7f3a", "deadbeef01", "ffffffffffffffff", "9f86d081884c7d65"], "RAX: {} saved"),
    "uuid": (
        ["123e4567-e89b-12d3-a456-426614174000", "{3F2504E0-4F89-11D3-9A0C-0305E82C3301}",
         "req-9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"],
        "Instance {} started",
    ),
    "duration": (["12ms", "3.5 s", "850 us", "2.1s", "90 seconds"], "Request completed in {} ok"),
    "size": (["1.2GB", "512K", "4096 bytes", "0.66 GB"], "Rebalancing {} from the ring"),
    "key=value": (["mode=async", "mode=sync", "mode=batch"], "writer started {} for queue"),
    "key:value": (["source:watch", "source:phone", "source:pedometer"], "steps updated {} now"),
    "quoted": (['"Home Network"', '"lab"', '"Cafe Free WiFi"', '""'], "joined network {} today"),
    "email": (["alice@example.com", "bob.smith@corp.example.org", "c+tag@example.io"],
              "Sending reset link to {} now"),
    "java id": (
        ["job_1445144423722_0020", "attempt_1445144423722_0020_m_000000_0",
         "container_e02_1445144423722_0020_01_000001"],
        "Launching {} on queue",
    ),
    "block id": (["blk_-123", "blk_4567", "blk_-9081726354"], "Deleting block {} now"),
    "file name at the start": (
        ["chrome.exe", "svchost.exe", "OneDrive.exe", "libssl.so", "backup.tar"],
        "{} - connection to the proxy opened",
    ),
    "process id": (["1234", "77", "9"], "worker[{}]: exited with status 1"),
    "boolean": (["true", "false"], "dry run is {} for this job"),
    "date": (["Jun", "Jul", "Aug"], "archive of {} 2026 rotated"),
    "user name": (["alice", "bob", "carol", "dave"], "Password changed for {}"),
    "list of words": (
        ["[dev]", "[dev, local]", "[cloud, test, debug]", "[auth; cache; metrics; tracing]"],
        "active profiles {} loaded from the environment",
    ),
    "reason of several words": (
        ["connection reset by peer", "timeout", "no route to host", "broken pipe", "EOF"],
        "Request to the backend failed: {} (will retry)",
    ),
    "word of varying punctuation": (
        ["+E(0)K", "+EDC", "-E(0)", "+", "-T", "(x)", "[y]", "a.b"],
        "query for zone answered with flags {} to client",
    ),
    "process tag": (
        ["chronyd[12]", "ntpd[7731]", "hostapd[301]", "named[4]"],
        "{}: received SIGHUP, reloading configuration",
    ),
    "unit tag": (
        ["nginx.service", "postfix.service", "man-db.service", "cups-browsed.service"],
        "{}: Main process exited, code=exited, status=1/FAILURE",
    ),
    "user in brackets": (["(root)", "(alice)", "(bob)", "(erin)"], "{} CMD started by cron"),
    "free text after a key": (
        ["connection refused", "timed out after 30s", "permission denied for /srv/x",
         "upstream vault:443 reset the connection", "invalid checksum (expected 0x1f)"],
        "task 12 failed: {}",
    ),
    "statement after a key": (
        ["SELECT id FROM tasks WHERE owner_id = $1", "BEGIN", "DELETE FROM leases",
         "UPDATE outbox SET state = 'done' WHERE id = $2"],
        "duration: 3.5 ms statement: {}",
    ),
    "description holding a path": (
        ["Message of the Day", "Rotate log files", "Discard unused blocks from /etc/fstab",
         "Clean up /tmp and /var/tmp", "Refresh package metadata"],
        "Starting {}...",
    ),
    "command in brackets": (
        ["/opt/scripts/sync.py", "run-parts --report /etc/cron.hourly", "certbot renew -q",
         "test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )"],
        "session 4 CMD ({})",
    ),
    "multi-word name": (
        ["Mary", "Mary Ann", "Mary Ann Smith", "Jean-Luc Picard", "Ana van der Berg"],
        "Comment added by {} to the ticket",
    ),
}  # fmt: skip


def _one_template(values: list[str], event: str) -> set[str]:
    lines = [event.format(v) for v in values for _ in range(2)]
    noise = ["Health check passed", "Reloading configuration from disk"]
    mined = TemplateMiner().mine_batch(noise + lines)
    return {m.template for m in mined[len(noise) :]}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_variable_of_each_shape_lands_in_one_template(name: str) -> None:
    values, event = SHAPES[name]
    templates = _one_template(values, event)
    assert len(templates) == 1, templates
    assert "<*>" in next(iter(templates))


@pytest.mark.parametrize(
    ("values", "event", "template"),
    [
        (
            ["cache-primary:6379", "db.replica:5432"],
            "upstream {} marked down after {} failures",
            "upstream <*>:<*> marked down after <*> failures",
        ),
        (
            ["aa:bb:cc:dd:0e:ff", "00-1A-2B-3C-4D-5E"],
            "lease for {} renewed for {}s",
            "lease for <*> renewed for <*>",
        ),
        (
            ["alice@bastion", "bob@jump-host"],
            "session {} opened, {} left",
            "session <*> opened, <*> left",
        ),
    ],
)
def test_two_values_of_a_shape_over_many_lines_stay_one_event(
    values: list[str], event: str, template: str
) -> None:
    # Two constant-looking words alone at a position over many lines would be two events; a
    # shape says they are values before any count does.
    lines = [event.format(v, n) for v in values for n in range(12)]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {template}


def test_a_value_that_does_not_vary_keeps_its_text() -> None:
    lines = [f"GET /api/v1/cart customer_id={n} status=200" for n in range(5)]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {
        "GET /api/v1/cart customer_id=<*> status=<*>"
    }


def test_constants_that_look_variable_stay_in_the_template() -> None:
    lines = [
        f"Using scheduler class org.example.sched.v2.FairScheduler over HTTP/1.1 on x86_64 {n}"
        for n in range(4)
    ]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {
        "Using scheduler class org.example.sched.v2.FairScheduler over HTTP/<*> on x86_64 <*>"
    }


def test_dotted_names_that_are_not_hosts_are_not_values() -> None:
    # A class, a package and a configuration key have no top-level domain at their end; a
    # value at the start of a message is recognised by its shape only.
    names = ["org.apache.Foo", "com.example.mail", "os.name", "user.id", "sign.in"]
    hosts = ["alpha.example.org", "bravo.example.org", "charlie.cluster.internal"]
    mined = TemplateMiner().mine_batch([f"{n} loaded" for n in names + hosts])
    assert [m.template for m in mined] == [f"{n} loaded" for n in names] + ["<*> loaded"] * 3


def test_hosts_under_country_codes_are_values_even_at_the_start() -> None:
    hosts = ["proxy.cse.cuhk.edu.hk", "www.bbc.co.uk", "mirror.example.com.au",
             "files.example.ch", "ntp.example.se", "db.example.ac.jp"]  # fmt: skip
    mined = TemplateMiner().mine_batch([f"{h}:5070 open through proxy" for h in hosts])
    assert {m.template for m in mined} == {"<*>:<*> open through proxy"}


def test_a_different_first_word_is_a_different_event() -> None:
    daemons = ["cupsd", "syslogd", "klogd", "sdpd", "hcid"]
    mined = TemplateMiner().mine_batch([f"{d} startup succeeded" for d in daemons])
    assert len({m.template for m in mined}) == len(daemons)


def test_free_text_after_a_first_word_key_stays_apart() -> None:
    # ``error:`` opening a message names no value: what follows is the event itself.
    rests = ["disk full", "cannot bind socket", "configuration has no key"]
    mined = TemplateMiner().mine_batch([f"error: {r}" for r in rests for _ in range(2)])
    assert len({m.template for m in mined}) == len(rests)


def test_a_logger_name_after_a_bracketed_value_is_not_a_key() -> None:
    # ``[pid] logger: text``: the text after the logger's name is the event, whatever it is.
    texts = ["Booting worker with pid: 12", "WORKER TIMEOUT (pid:12)", "Worker was sent SIGKILL!"]
    lines = [f"[{n}] gunicorn.error: {t}" for t in texts for n in (1, 2)]
    assert len({m.template for m in TemplateMiner().mine_batch(lines)}) == len(texts)


def test_two_verbs_spread_over_clusters_are_two_events() -> None:
    # Each queue routes its lines to a cluster of its own, too small to show that ``paused``
    # and ``resumed`` are two events; the clusters the fold joins show it together.
    queues = ["default", "emails", "exports", "billing", "thumbnails"]
    lines = [f"queue {q} is {state}" for q in queues for state in ("paused", "resumed")]
    templates = {m.template for m in TemplateMiner().mine_batch(lines)}
    assert templates == {"queue <*> is paused", "queue <*> is resumed"}


def test_two_words_alone_at_a_position_over_many_lines_are_two_events() -> None:
    suites = ["Orders", "Invoices", "Login", "Search", "Carts", "Users"]
    lines = [
        f"Test suite {s}Test {verdict} ({n} tests) in {n}ms"
        for s in suites
        for verdict in ("passed", "failed")
        for n in (3, 40)
    ]
    templates = {m.template for m in TemplateMiner().mine_batch(lines)}
    assert templates == {
        "Test suite <*> passed (<*> tests) in <*>",
        "Test suite <*> failed (<*> tests) in <*>",
    }


def test_few_lines_with_two_values_stay_one_event() -> None:
    mined = TemplateMiner().mine_batch(
        ["session opened for alice from web-1", "session opened for bob from web-7"]
    )
    assert {m.template for m in mined} == {"session opened for <*> from web-<*>"}


def test_empty_and_blank_messages_are_mined_like_any_other() -> None:
    contents = ["", "   ", "disk full", "", "disk full", "\t"]
    miner = TemplateMiner()
    mined = miner.mine_batch(contents)
    assert [m.template for m in mined] == ["", "", "disk full", "", "disk full", ""]
    assert [miner.match(c) for c in contents] == mined


def test_lists_of_varying_length_share_a_template() -> None:
    lines = [f"samples [{', '.join(str(i) for i in range(n))}] avg:{n}" for n in range(1, 7)]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {"samples [<*>] avg:<*>"}


def test_three_phrases_in_one_place_stay_three_events() -> None:
    # A run of words takes more distinct values than a single word before it is a variable.
    phrases = ["was accepted", "was rejected by policy", "is pending review"]
    lines = [f"Request to the backend {p} (id {n})" for p in phrases for n in (1, 2, 3)]
    assert len({m.template for m in TemplateMiner().mine_batch(lines)}) == 3


def test_lists_of_fields_and_phrases_in_brackets_keep_their_words() -> None:
    lines = [f"pool stats (total={n}, active={n}) and (auth failed, {n} attempts)" for n in (1, 2)]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {
        "pool stats (total=<*>, active=<*>) and (auth failed, <*> attempts)"
    }


def test_a_logfmt_message_is_the_event_not_a_value() -> None:
    lines = [
        *(f'caller=db.go:{n} msg="query" duration_ms={n}' for n in range(3)),
        *(f'caller=db.go:{n} msg="slow query" duration_ms={n}' for n in range(3)),
    ]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {
        'caller=db.go:<*> msg="query" duration_ms=<*>',
        'caller=db.go:<*> msg="slow query" duration_ms=<*>',
    }


def test_a_quoted_text_that_opens_a_structured_line_is_the_event() -> None:
    # Structured loggers write the message first, quoted, then key="value" pairs: the quoted
    # message names the event, where a quoted string elsewhere is a value.
    apps = ["web", "api", "worker", "cache"]
    lines = [
        f'"{verb} container" containerName="{app}" pod="default/{app}-{n}"'
        for verb in ("Started", "Stopped", "Killing")
        for app in apps
        for n in (1, 2)
    ]
    assert {m.template for m in TemplateMiner().mine_batch(lines)} == {
        f'"{verb} container" containerName="<*>" pod="<*>"'
        for verb in ("Started", "Stopped", "Killing")
    }


def test_value_tokens_can_be_turned_off() -> None:
    lines = ["retry true", "retry false"]
    on, off = (
        MinerConfig(merge_templates=False),
        MinerConfig(value_tokens=False, merge_templates=False),
    )
    assert {m.template for m in TemplateMiner(on).mine_batch(lines)} == {"retry <*>"}
    assert {m.template for m in TemplateMiner(off).mine_batch(lines)} == set(lines)


def _redactor() -> Callable[[str], str]:
    return Redactor().redact


def test_no_template_keeps_a_fragment_of_a_secret_in_a_url_or_path() -> None:
    secret = "sk_live_51HxQ2eZvKYlo2C8a9XyZ1234abcd"
    lines = [
        f"GET https://api.example.com/v1/charges?key={secret}&n={n} took {n}ms" for n in range(3)
    ] + [f"reading /srv/keys/{secret}/{n}.pem" for n in range(3)]
    redact = _redactor()
    mined = TemplateMiner(guard=redact).mine_batch(lines)
    shown = {redact(m.template) for m in mined}
    fragments = {secret[i : i + 8] for i in range(len(secret) - 7)}
    assert [t for t in shown if any(f in t for f in fragments)] == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab0x9f./:\\@-=[]<*> _'\"")), max_size=40))
def test_masking_punctuation_heavy_text_is_idempotent(text: str) -> None:
    once = mask_content(text)
    assert mask_content(once) == once


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["alpha", "bravo", "charlie", "delta", "echo"]), min_size=1),
    st.sampled_from(["example.com", "prod.example.org", "cluster.internal"]),
)
def test_hosts_without_digits_never_split_an_event(labels: list[str], domain: str) -> None:
    mined = TemplateMiner().mine_batch([f"heartbeat from {h}.{domain} ok" for h in labels])
    assert len({m.template_id for m in mined}) == 1
    assert template_id_of(mined[0].template) == mined[0].template_id
