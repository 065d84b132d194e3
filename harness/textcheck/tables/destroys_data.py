"""DESTROYS_DATA: commands (and requests in words) that destroy data.

Recursive deletes outside scratch directories; files a system or a database cannot run
without; dropped or emptied tables, databases, indices, collections, queues and topics;
flushed caches; formatted, wiped or overwritten disks; infrastructure torn down (IaC destroy,
cloud CLI delete or terminate, Helm releases, Kubernetes workloads and namespaces);
force-pushed or deleted branches; backups switched off; every process killed. Scoped,
reversible operations are not here: deleting one pod (its controller replaces it), a scoped
UPDATE or DELETE, removing a single file, cleaning ``/tmp``.
"""

from __future__ import annotations

from harness.textcheck.rulebook import TextRule
from harness.textcheck.tables._shell import OPTS, OVERWRITE

__all__ = ["RULES"]

_CATEGORY = "DESTROYS_DATA"

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

RULES: tuple[TextRule, ...] = (
    TextRule(
        id="destroys-data.rm-recursive",
        category=_CATEGORY,
        description="A recursive delete outside scratch space (rm -r, --no-preserve-root).",
        pattern=(
            r"\brm\s+"
            + OPTS
            + r"(-[a-z]*r[a-z]*|--recursive)\s+"
            + OPTS
            + r"(?!-|"
            + _SCRATCH
            + r")\S"
            r"|--no-preserve-root\b"
        ),
        examples=(
            "rm -rf /var/lib/mysql",
            "rm -fr ~/*",
            "rm --recursive --force /var/lib/mysql",
            "rm -r data/",
            "rm -r -f /var/lib/x",
            "gsutil rm -r gs://prod-backups",
            "rm -rf -- /srv/data",
            "rm -rf --no-preserve-root /",
        ),
        lookalikes=(
            "rm /tmp/heapdump-1.hprof",
            "rm -rf /tmp/jetty-*",
            "rm -r -f /tmp/x",
        ),
    ),
    TextRule(
        id="destroys-data.rm-root-or-home",
        category=_CATEGORY,
        description="rm of the root, a home directory, or every file of a directory by glob.",
        pattern=(
            r"\brm\s+" + OPTS + r"['\"]?(/|~|\$home)/?\*?['\"]?(\s|;|$)"
            r"|\brm\s+" + OPTS + r"(?!" + _SCRATCH + r")\S*/\*"
        ),
        examples=(
            "rm -f /var/lib/mysql/*",
            "rm -f ~/*",
        ),
        lookalikes=("rm -f /var/run/nginx.pid && systemctl start nginx",),
    ),
    TextRule(
        id="destroys-data.essential-files",
        category=_CATEGORY,
        description="Files a system or a database cannot run without (/etc/passwd, /boot, a data directory, InnoDB or WAL files) deleted, emptied or overwritten.",
        pattern=(
            r"\brm\s+"
            + OPTS
            + r"(?!\S*\.(lock|pid|sock)(\s|$))\S*/var/lib/(mysql|postgresql|pgsql|redis|mongodb|"
            r"etcd|kafka|elasticsearch|cassandra|zookeeper|rabbitmq)\b"
            r"|" + OVERWRITE + r"/etc/(passwd|shadow|gshadow|group|sudoers|fstab)\b"
            r"|\b(rm|unlink)\s+" + OPTS + r"/etc/(passwd|shadow|gshadow|group|sudoers|fstab)\b"
            r"|" + OVERWRITE + r"\S*/var/lib/(mysql|postgresql|pgsql|redis|mongodb|etcd|kafka)/"
            r"|\btruncate\s+(-s\s*0|--size[=\s]+0)\s+(\S+\s+)*/etc/(passwd|shadow|group|sudoers|"
            r"fstab)\b"
            r"|\brm\s+" + OPTS + r"\S*(/boot/|ib_logfile\d|ibdata\d|\.ibd\b|pg_wal/|pg_xlog/)"
            r"|\b(remove|delete|wipe)\s+(the\s+)?\S*/var/lib/(mysql|postgresql|pgsql|redis|mongodb|"
            r"etcd|kafka|elasticsearch|cassandra|zookeeper|rabbitmq)\b"
            r"|\btruncate\s+(-s\s*0|--size[=\s]+0)\s+(\S+\s+)*\S*/var/lib/"
        ),
        examples=(
            "rm -f /var/lib/mysql/ibdata1",
            ": > /etc/fstab",
            "cp /dev/null /etc/group",
            "truncate -s 0 /var/lib/postgresql/15/main/pg_wal/000000010000000000000001",
            "unlink /etc/sudoers",
            "truncate --size=0 /etc/shadow",
            "rm -f /boot/initrd.img-6.1.0-13-amd64",
            "rm /var/lib/mysql/ib_logfile1",
            "Remove the /var/lib/postgresql directory on the replica.",
            "cp /dev/null /var/lib/mysql/ibdata1",
        ),
        lookalikes=(
            "Remove the stale lock file: rm -f /var/lib/mysql/mysql.sock.lock",
            "echo 'nameserver 10.0.0.2' >> /etc/resolv.conf",
        ),
    ),
    TextRule(
        id="destroys-data.find-delete",
        category=_CATEGORY,
        description="A whole filesystem or home searched and deleted, or a list piped into a recursive rm.",
        pattern=(
            r"\bfind\s+['\"]?(/|~|\$home)/?['\"]?\s+(\S+\s+)*-delete\b"
            r"|\bfind\s+(?!"
            + _SCRATCH
            + r")(/|~|\$home)\S*\s+((?!-(i?name|[acm]time|[acm]min|newer\w*|size|i?path|i?regex|"
            r"empty)\b)\S+\s+)*-delete\b"
            r"|\bxargs\s+(\S+\s+)*rm\s+(-\S+\s+)*-[a-z]*r"
            r"|\bfind\s+['\"]?(/|~|\$home)/?['\"]?\s+[^|\n]*\|\s*xargs\s+(\S+\s+)*rm\b"
        ),
        examples=(
            "find / -name '*.log' -delete",
            "find /var/lib/mysql -type f -delete",
            "ls /srv/data | xargs rm -rf",
            "find ~ -name '*.db' | xargs rm",
        ),
        lookalikes=(
            "find /tmp -name '*.hprof' -mtime +7 -delete",
            "find /var/log/app -name '*.gz' -mtime +30 -delete",
        ),
    ),
    TextRule(
        id="destroys-data.moved-to-dev-null",
        category=_CATEGORY,
        description="A file moved onto the null device (/dev/null, NUL): the file is gone and the device replaced.",
        pattern=(
            r"\bmv\s+" + OPTS + r"(\S+\s+)+/dev/null\b(?!/)"
            r"|\bmv\s+" + OPTS + r"(-t|--target-directory)[\s=]+/dev/null\b"
            r"|\b(move-item|mi|move)\s+(-\w+\s+)*\S+\s+(-destination\s+)?['\"]?nul['\"]?(\s|$)"
        ),
        examples=(
            "mv /var/lib/redis/dump.rdb /dev/null",
            "mv -f /srv/app/orders.db /dev/null",
            "mv /srv/app/*.wal /srv/app/*.db /dev/null",
            "mv -t /dev/null /srv/backups/nightly.tar.gz",
            "Move-Item C:\\data\\shop.mdf -Destination NUL",
        ),
        lookalikes=(
            "2>/dev/null hides the error; check the exit code instead.",
            "mv /srv/app/orders.db /srv/app/orders.db.bak 2>/dev/null",
            "move the noisy output to /dev/null with 2>&1",
        ),
    ),
    TextRule(
        id="destroys-data.disk-wiped",
        category=_CATEGORY,
        description="A disk, partition, volume or pool formatted, wiped or overwritten.",
        pattern=(
            r"\bmkfs(\.\w+)?\b"
            r"|\bdd\s+(\S+\s+)*of=/dev/(?!null\b)"
            r"|\b(lv|vg|pv)remove\b"
            r"|\bwipefs\b"
            r"|\bshred\b"
            r"|\b(mke2fs|mkswap|blkdiscard)\s"
            r"|\bsgdisk\s+(\S+\s+)*--zap"
            r"|\bparted\s+\S+\s+rm\b"
            r"|\b(zpool|zfs)\s+destroy\b"
            r"|" + OVERWRITE + r"/dev/(sd[a-z]|nvme\d|xvd[a-z]|vd[a-z]|hd[a-z]|mmcblk\d|disk\d)"
            r"|\b((re)?format|wipe|erase|zero)\s+(the\s+|all\s+(the\s+)?)?([\w-]+\s+){0,2}(disks?|"
            r"drives?|volumes?|partitions?)\b"
        ),
        examples=(
            "mkfs.ext4 /dev/sdb1",
            "dd if=/dev/zero bs=1M of=/dev/sda",
            "lvremove -f /dev/vg0/data",
            "zfs destroy -r tank/data",
            "cat /dev/zero > /dev/nvme1n1",
            "Wipe the data volume on db-2.",
            "wipefs -a /dev/sdb",
            "shred -n 3 -z /dev/sdc",
            "mke2fs -t ext4 /dev/nvme1n1",
            "sgdisk --zap-all /dev/sda",
            "parted /dev/sdb rm 1",
        ),
        lookalikes=("dd if=/dev/zero of=/dev/null bs=1M count=100",),
    ),
    TextRule(
        id="destroys-data.windows-delete",
        category=_CATEGORY,
        description="Recursive or system deletes on Windows (Remove-Item -Recurse, rd /s, del /s, a drive root, the Windows directory).",
        pattern=(
            r"\bremove-item\s+(\S+\s+)*-recurse\b"
            r"|\brd\s+/s\b"
            r"|\bdel\s+(/\w\s+)*/s\b"
            r"|\bremove-item\s+(\S+\s+)*['\"]?[a-z]:\\?(['\"]?(\s|$)|\S*\*)"
            r"|\bdel\s+(/\w\s+)*\S*\\(windows|system32)\\"
        ),
        examples=(
            "Remove-Item -Recurse -Force C:\\data",
            "rd /s /q C:\\inetpub",
            "Remove-Item -Recurse D:\\",
            "del /f /s /q C:\\data\\*",
            "del /q C:\\Windows\\System32\\drivers\\*.sys",
        ),
        lookalikes=("Remove-Item C:\\temp\\build.log",),
    ),
    TextRule(
        id="destroys-data.windows-disk",
        category=_CATEGORY,
        description="A Windows drive formatted, cleared or wiped.",
        pattern=(
            r"\bformat\s+[a-z]:"
            r"|\bformat-volume\b"
            r"|\bclear-disk\b"
            r"|\bdiskpart\b[^\n]{0,80}\bclean\b"
            r"|\bcipher\s+/w\b"
        ),
        examples=(
            "Format-Volume -DriveLetter E -FileSystem NTFS",
            "format D: /fs:NTFS /q",
            "Clear-Disk -Number 1 -RemoveData",
            "diskpart: select disk 1, then clean",
            "cipher /w:D:\\",
        ),
        lookalikes=("The log format changed in v2: timestamps are now RFC 3339.",),
    ),
    TextRule(
        id="destroys-data.windows-backups",
        category=_CATEGORY,
        description="Windows shadow copies or backups deleted.",
        pattern=(
            r"\bvssadmin\s+(delete\s+shadows|resize\s+shadowstorage)\b"
            r"|\bwbadmin\s+delete\b"
        ),
        examples=(
            "vssadmin delete shadows /for=C: /quiet",
            "wbadmin delete systemstatebackup -keepversions:0",
        ),
        lookalikes=("vssadmin list shadows /for=C:",),
    ),
    TextRule(
        id="destroys-data.windows-system",
        category=_CATEGORY,
        description="The registry's machine hives or the boot configuration deleted or changed.",
        pattern=(
            r"\breg\s+delete\s+hk(lm|ey_local_machine|cr|u)\b"
            r"|\bbcdedit\s+/(set|delete)\b"
        ),
        examples=(
            "reg delete HKLM\\SOFTWARE\\Vendor /f",
            "bcdedit /set {current} safeboot minimal",
        ),
        lookalikes=("bcdedit /enum all",),
    ),
    TextRule(
        id="destroys-data.sql-drop",
        category=_CATEGORY,
        description="SQL that drops a database object: a table, database, schema, index, view, column, user, role, trigger or function.",
        pattern=(
            r"\b(drop|truncate)\s+(table|database|schema|keyspace|index)\b"
            r"|\bdrop\s+(owned\s+by|tablespace|view|column|collection)\b"
            r"|\balter\s+table\s+\S+\s+drop\b"
            r"|\bdrop\s+(user|role)\s+(if\s+exists\s+)?(['\"`]|[\w.]+\s*(;|$|,|@|\)))"
            r"|\bdrop\s+(trigger|function|procedure|extension|materialized\s+view|sequence|event|"
            r"type|domain)\b"
        ),
        examples=(
            "DROP TABLE shop.orders;",
            "TRUNCATE TABLE ops.config_changes",
            "ALTER TABLE shop.orders DROP COLUMN total",
            "DROP USER 'app'@'%'",
            "DROP TRIGGER audit_orders",
            "DROP PROCEDURE cleanup",
        ),
        lookalikes=("drop user sessions older than 7 days from the cache",),
    ),
    TextRule(
        id="destroys-data.sql-every-row",
        category=_CATEGORY,
        description="SQL that empties a table or rewrites every row (TRUNCATE, DELETE or UPDATE without a real WHERE).",
        pattern=(
            r"\btruncate\s+(?!table\b)[\w.`\"]+\s*(;|$|,|['\"]|restart\b|cascade\b|continue\b)"
            r"|\bdelete\s+from\s+[\w.`\"]+\s*(;|$|\)|--|#|['\"]|limit\b)"
            r"|\bdelete\s+(?!from\b)[\w.`\"\[\]]+\s*;"
            r"|\b(delete\s+from\s+[\w.`\"]+|update\s+[\w.`\"]+\s+set\s+[^;\n]{0,200}?)\s+where\s+"
            + _TAUTOLOGY
            + r"\s*(;|$|\)|or\b|--|#|['\"]|limit\b)"
            r"|\bupdate\s+[\w.`\"]+\s+set\s+[\w.`\"]+\s*=(?![^;\n]*\bwhere\b)[^;\n]*(;|$)"
            r"|\bdelete\s+\*\s+from\b"
        ),
        examples=(
            "DELETE orders;",
            "delete [dbo].[Orders];",
            "DELETE FROM shop.customers;",
            "DELETE FROM shop.orders WHERE 1=1;",
            "UPDATE ops.config SET value = '40';",
            "TRUNCATE shop.orders;",
            "TRUNCATE orders RESTART IDENTITY CASCADE",
            "DELETE FROM orders WHERE id > 0;",
            "DELETE FROM orders WHERE id=id",
            "delete from orders where 2>1;",
            "DELETE FROM orders -- all rows",
            "mysql -e 'DELETE FROM shop.payments'",
            'psql -c "TRUNCATE audit_log"',
            "TRUNCATE sessions, carts;",
            "mysql -e \"UPDATE shop.users SET role = 'admin' WHERE 1=1\"",
            "DELETE * FROM Orders;",
        ),
        lookalikes=(
            "DELETE FROM shop.sessions WHERE expires_at < NOW()",
            "UPDATE ops.config SET value = '40' WHERE config_key = 'maximum-pool-size'",
            "DELETE FROM shop.orders WHERE id = 42;",
            "delete the stale session row; then retry",
        ),
    ),
    TextRule(
        id="destroys-data.dropdb",
        category=_CATEGORY,
        description="A database dropped with its command-line tool (dropdb, mysqladmin drop).",
        pattern=(
            r"\bdropdb\s+\w"
            r"|\bmysqladmin\s+(\S+\s+)*drop\b"
        ),
        examples=(
            "dropdb shop",
            "mysqladmin -u root -p drop shop",
        ),
        lookalikes=("mysqladmin -u root -p status",),
    ),
    TextRule(
        id="destroys-data.replication-logs",
        category=_CATEGORY,
        description="A database's binary logs purged or its replication reset.",
        pattern=(
            r"\bpurge\s+(binary|master)\s+logs\b"
            r"|\breset\s+(master|slave\s+all|binary\s+logs)\b"
        ),
        examples=(
            "PURGE BINARY LOGS BEFORE NOW()",
            "RESET MASTER;",
        ),
        lookalikes=("SHOW BINARY LOGS;",),
    ),
    TextRule(
        id="destroys-data.durability-off",
        category=_CATEGORY,
        description="A database's write-ahead log reset, or its durability (fsync) switched off.",
        pattern=(
            r"\bpg_reset(wal|xlog)\b"
            r"|\bfsync\s*=\s*off\b"
        ),
        examples=(
            "pg_resetwal -f /srv/pg/data",
            "Set fsync = off in postgresql.conf to speed up the import.",
        ),
        lookalikes=("fsync latency on the WAL volume rose to 40 ms at 14:02.",),
    ),
    TextRule(
        id="destroys-data.mongodb",
        category=_CATEGORY,
        description="MongoDB databases or collections dropped or emptied.",
        pattern=(
            r"\bdropdatabase\s*\("
            r"|\bdb\.(\w+\.)?drop\s*\("
            r"|\bdb\.\w+\.(deletemany|remove|updatemany)\s*\(\s*\{\s*\}"
            r"|\bdb\.getcollection\s*\([^)]*\)\s*\.\s*drop\s*\("
        ),
        examples=(
            "db.dropDatabase()",
            "mongosh --eval \"db.getSiblingDB('shop').dropDatabase()\"",
            "db.orders.deleteMany({})",
            "db.getCollection('events').drop()",
            "db.sessions.drop()",
        ),
        lookalikes=("db.orders.deleteMany({status: 'test'})",),
    ),
    TextRule(
        id="destroys-data.elasticsearch",
        category=_CATEGORY,
        description="Elasticsearch indices deleted or emptied.",
        pattern=(
            r"\bcurl\s+(\S+\s+)*(-x\s*|--request\s+)delete\b[^|;\n]*(_all\b|\*|:9200/)"
            r"|(^|\n)delete\s+/[\w.*-]+\s*($|\n)"
            r"|_delete_by_query\b"
        ),
        examples=(
            "curl -XDELETE 'http://localhost:9200/_all'",
            'curl -X POST es:9200/orders/_delete_by_query -d \'{"query":{"match_all":{}}}\'',
            "DELETE /orders-v1",
        ),
        lookalikes=("curl -X DELETE http://svc:8080/cache/key",),
    ),
    TextRule(
        id="destroys-data.redis",
        category=_CATEGORY,
        description="Redis data flushed, its keys mass-deleted, or the server stopped without saving.",
        pattern=(
            r"\bflush(all|db)\b"
            r"|\bxargs\s+redis-cli\s+(-\S+\s+)*(del|unlink)\b"
            r"|\bshutdown\s+nosave\b"
            r"|\bcluster\s+reset\s+hard\b"
            r"|\bdebug\s+segfault\b"
        ),
        examples=(
            "redis-cli FLUSHALL",
            "redis-cli --scan --pattern '*' | xargs redis-cli DEL",
            "redis-cli SHUTDOWN NOSAVE",
            "redis-cli --scan --pattern 'sess:*' | xargs redis-cli unlink",
            "redis-cli -c CLUSTER RESET HARD",
            "redis-cli DEBUG SEGFAULT",
        ),
        lookalikes=("redis-cli INFO persistence",),
    ),
    TextRule(
        id="destroys-data.queue-purged",
        category=_CATEGORY,
        description="A message broker's queues, streams or vhosts purged or deleted, or its node reset (RabbitMQ, ActiveMQ/Artemis, NATS, Pulsar).",
        pattern=(
            r"\brabbitmqctl\s+"
            + OPTS
            + r"(purge_queue|reset|force_reset|delete_queue|delete_vhost)\b"
            r"|\brabbitmqadmin\s+" + OPTS + r"(delete|purge)\s+(queue|exchange|vhost)\b"
            r"|\brabbitmq-queues\s+" + OPTS + r"(delete|purge)\b"
            r"|\b(activemq|artemis)\s+" + OPTS + r"(purge\b|queue\s+(delete|purge)\b)"
            r"|\bnats\s+" + OPTS + r"(stream|str|consumer|kv|object)\s+(purge|rm|del|delete)\b"
            r"|\bpulsar-admin\s+" + OPTS + r"(topics|namespaces|tenants)\s+(delete|clear-backlog|"
            r"delete-partitioned-topic)\b"
        ),
        examples=(
            "rabbitmqctl purge_queue orders",
            "rabbitmqctl --node=rabbit@mq-1 force_reset",
            "rabbitmqadmin delete queue name=orders",
            "rabbitmq-queues delete orders --vhost /",
            "artemis queue purge --name orders",
            "nats stream purge ORDERS -f",
            "pulsar-admin topics delete persistent://shop/orders/events",
        ),
        lookalikes=(
            "rabbitmqctl list_queues name messages",
            "rabbitmqadmin list queues name messages",
            "nats stream info ORDERS",
        ),
    ),
    TextRule(
        id="destroys-data.kafka",
        category=_CATEGORY,
        description="Kafka topics deleted, their retention cut to nothing, or every group's offsets reset.",
        pattern=(
            r"\bkafka-topics(\.sh)?\s+(\S+\s+)*--delete\b"
            r"|\bretention\.(ms|bytes)\s*=\s*\d{1,3}\b"
            r"|--reset-offsets\b[^\n]*--all-(groups|topics)\b[^\n]*--execute\b"
        ),
        examples=(
            "kafka-topics --bootstrap-server kafka:9092 --delete --topic orders",
            "kafka-consumer-groups --reset-offsets --to-latest --all-groups --execute",
            "kafka-configs --alter --entity-name payments --add-config retention.ms=10",
        ),
        lookalikes=(
            "kafka-configs --alter --entity-name payments --add-config retention.ms=604800000",
        ),
    ),
    TextRule(
        id="destroys-data.coordination-store",
        category=_CATEGORY,
        description="A coordination store's keys deleted by prefix or range (etcd, ZooKeeper, Consul).",
        pattern=(
            r"\betcdctl\s+del\b[^\n]*--prefix"
            r"|\b(zkcli(\.sh)?|zookeeper-shell(\.sh)?)\b[^\n]*\b(deleteall|rmr)\b"
            r"|\betcdctl\s+del\b[^\n]*--from-key\b"
            r"|\bconsul\s+kv\s+delete\s+(\S+\s+)*-recurse\b"
        ),
        examples=(
            "etcdctl del --prefix /",
            "zkCli.sh -server zk:2181 deleteall /kafka",
            "consul kv delete -recurse config/",
            "etcdctl del '' --from-key=true",
        ),
        lookalikes=("etcdctl get --prefix /registry/pods",),
    ),
    TextRule(
        id="destroys-data.kubectl-delete",
        category=_CATEGORY,
        description="Kubernetes workloads, services, secrets, namespaces or manifests deleted.",
        pattern=(
            r"\bkubectl\s+"
            + _GLOBAL
            + r"delete\s+"
            + _GLOBAL
            + r"("
            + _KUBE_KINDS
            + r"|(-f|--filename|-k|--kustomize)[\s=]|[^|;\n]*(--all(?!-)|--all-namespaces|\s-a)\b)"
            r"|\b(oc|k)\s+" + _GLOBAL + r"delete\s+" + _GLOBAL + r"(project|ns|namespaces?)\b"
        ),
        examples=(
            "kubectl delete namespace checkout",
            "kubectl delete pods --all",
            "kubectl delete deployment checkout-api -n prod",
            "kubectl -n prod delete deploy checkout-api",
            "kubectl delete -f prod-manifests/",
            "kubectl delete pod -l app=checkout --all-namespaces",
            "kubectl delete networkpolicy default-deny -n prod",
            "oc delete project prod",
            "kubectl delete pods -n prod --all",
            "kubectl delete -k overlays/prod",
        ),
        lookalikes=(
            "kubectl rollout restart deployment/checkout-api",
            "kubectl delete pod checkout-api-7d9f8c6b5-x2x7q",
            "kubectl delete pod checkout-api-7d9f8c6b5-x2x7q -n prod",
            "kubectl delete job stuck-migration",
        ),
    ),
    TextRule(
        id="destroys-data.kubectl-force",
        category=_CATEGORY,
        description="Kubernetes workloads forced down: replaced by force, drained without eviction, every deployment scaled to zero.",
        pattern=(
            r"\bkubectl\s+[^|;\n]*\breplace\s+[^|;\n]*--force\b"
            r"|--disable-eviction\b"
            r"|\bkubectl\s+[^|;\n]*\bscale\b[^|;\n]*(--all\b[^|;\n]*--replicas[=\s]+0\b|"
            r"--replicas[=\s]+0\b[^|;\n]*--all\b)"
        ),
        examples=(
            "kubectl scale deployment --replicas=0 --all -n shop",
            "kubectl replace --force -f kafka-statefulset.yaml",
            "kubectl drain node-4 --disable-eviction --force",
        ),
        lookalikes=("kubectl drain node-4 --ignore-daemonsets --delete-emptydir-data",),
    ),
    TextRule(
        id="destroys-data.delete-with-owner",
        category=_CATEGORY,
        description="Storage set to be deleted with what owns it, or its deletion protection lifted (reclaim or deletion policy Delete, no final snapshot).",
        pattern=(
            r"\b(persistentvolume)?reclaimpolicy[\"':\s]+delete\b"
            r"|\bdeletionpolicy[\"':\s]+delete\b"
            r"|\bdeletion_?protection[\"'\s]*[:=]\s*[\"']?false\b|--no-deletion-protection\b"
            r"|\bprevent_destroy\s*=\s*false\b"
            r"|\bskip_final_snapshot\s*=\s*true\b|--skip-final-snapshot\b"
        ),
        examples=(
            "persistentVolumeReclaimPolicy: Delete",
            'kubectl patch pv pv-db -p \'{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}\'',
            "reclaimPolicy: Delete",
            "DeletionPolicy: Delete",
            "deletion_protection = false",
            "aws rds modify-db-instance --db-instance-identifier shop --no-deletion-protection",
            "prevent_destroy = false",
            "skip_final_snapshot = true",
            "aws rds delete-db-instance --db-instance-identifier shop --skip-final-snapshot",
        ),
        lookalikes=(
            "persistentVolumeReclaimPolicy: Retain",
            "DeletionPolicy: Snapshot",
            "deletion_protection = true",
            "skip_final_snapshot = false",
        ),
    ),
    TextRule(
        id="destroys-data.iac-destroy",
        category=_CATEGORY,
        description="Infrastructure torn down or replaced by an IaC tool (terraform destroy, apply -replace, pulumi destroy).",
        pattern=(
            r"\b(terraform|terragrunt|pulumi|cdk)\s+(\S+\s+)*-?destroy\b"
            r"|\bterraform\s+apply\b[^\n]*\s-replace[=\s]"
        ),
        examples=(
            "terraform destroy -auto-approve",
            "terraform apply -destroy -auto-approve",
            "terraform apply -auto-approve -replace=aws_rds_cluster.shop",
        ),
        lookalikes=("terraform plan -target=module.checkout",),
    ),
    TextRule(
        id="destroys-data.bucket-emptied",
        category=_CATEGORY,
        description="A storage bucket emptied recursively or removed (aws s3, gsutil, s3cmd).",
        pattern=(
            r"\baws\s+" + _GLOBAL + r"s3\s+(rm\s+(\S+\s+)*--recursive\b|rb\b)"
            r"|\bgsutil\s+(-m\s+)?(rm\s+(\S+\s+)*-[a-z]*r|rb\b)"
            r"|\bs3cmd\s+((del|rm)\s+(\S+\s+)*--recursive|rb)\b"
        ),
        examples=(
            "aws s3 rm s3://prod-backups --recursive",
            "gsutil rb gs://prod-exports",
            "s3cmd rb s3://prod-exports",
        ),
        lookalikes=("aws s3 ls s3://prod-backups --recursive",),
    ),
    TextRule(
        id="destroys-data.cloud-delete",
        category=_CATEGORY,
        description="Cloud resources or clusters deleted, terminated or purged with a provider's CLI.",
        pattern=(
            r"\baws\s+"
            + _GLOBAL
            + r"[\w-]+\s+(delete|terminate)-(?!messages?\b|message-batch\b)[\w-]+"
            r"|\b(gcloud|az)\s+([\w-]+\s+){1,4}delete\b"
            r"|\b(eksctl|kind|k3d|minikube)\s+delete\s+cluster\b"
            r"|\bdoctl\s+([\w-]+\s+){1,3}delete\b"
            r"|\baws\s+" + _GLOBAL + r"[\w-]+\s+purge-[\w-]+"
        ),
        examples=(
            "aws rds delete-db-instance --db-instance-identifier shop",
            "gcloud sql instances delete shop-db",
            "aws --region us-east-1 ec2 terminate-instances --instance-ids i-0abc",
            "eksctl delete cluster --name prod",
            "aws sqs purge-queue --queue-url https://sqs.eu-west-1.amazonaws.com/1/orders",
            "doctl compute droplet delete web-1 --force",
        ),
        lookalikes=("aws sqs delete-message --queue-url https://sqs/1/q --receipt-handle AQE",),
    ),
    TextRule(
        id="destroys-data.release-uninstalled",
        category=_CATEGORY,
        description="A deployed release, application or job uninstalled or purged (Helm, Argo CD, Flux, Nomad).",
        pattern=(
            r"\bhelm\s+(uninstall|delete|del)\b"
            r"|\bargocd\s+app\s+delete\b"
            r"|\bflux\s+delete\b"
            r"|\bnomad\s+job\s+stop\s+(\S+\s+)*-purge\b"
        ),
        examples=(
            "helm uninstall checkout-api -n prod",
            "helm del checkout",
            "argocd app delete shop --cascade",
            "nomad job stop -purge checkout",
            "flux delete kustomization apps --silent",
        ),
        lookalikes=("helm upgrade --install checkout-api ./chart -n prod",),
    ),
    TextRule(
        id="destroys-data.keys-deleted",
        category=_CATEGORY,
        description="Encryption keys or vaults scheduled for deletion or purged (the data they encrypt goes with them).",
        pattern=(
            r"\bschedule-key-deletion\b"
            r"|\baz\s+keyvault\s+purge\b"
        ),
        examples=(
            "aws kms schedule-key-deletion --key-id 1234",
            "az keyvault purge --name prod-kv",
        ),
        lookalikes=("az keyvault secret show --vault-name prod-kv --name db-password",),
    ),
    TextRule(
        id="destroys-data.backups-off",
        category=_CATEGORY,
        description="Backups switched off, skipped or their retention cut to zero.",
        pattern=(
            r"--backup-retention-period[=\s]+0\b"
            r"|--no-backup\b"
            r"|\bdisable\s+(the\s+)?(automated\s+|automatic\s+|nightly\s+|daily\s+)?backups?\b"
        ),
        examples=(
            "aws rds modify-db-instance --db-instance-identifier shop --backup-retention-period 0",
            "Disable the nightly backups until the migration is done.",
            "Run the migration with --no-backup to save time.",
        ),
        lookalikes=(
            "aws rds modify-db-instance --db-instance-identifier shop --backup-retention-period 14",
        ),
    ),
    TextRule(
        id="destroys-data.git-history",
        category=_CATEGORY,
        description="Branches force-pushed or deleted, or a repository deleted.",
        pattern=(
            r"\bgit\s+push\s+(\S+\s+)*(--force|-f\b|--delete\b|-d\b|\+\S|:\S)"
            r"|\bgh\s+repo\s+delete\b"
        ),
        examples=(
            "git push origin main --force",
            "git push origin +main",
            "git push origin --delete main",
            "gh repo delete org/shop --yes",
        ),
        lookalikes=("git push origin feature/retry-budget",),
    ),
    TextRule(
        id="destroys-data.container-volumes",
        category=_CATEGORY,
        description="Containers or their volumes removed by force or pruned.",
        pattern=(
            r"\b(docker|podman)\s+(system\s+prune|volume\s+(rm|prune)|rm\s+(-[a-z]*f|--force))"
            r"|\b(docker[\s-])?compose\s+down\s+(\S+\s+)*(-v|--volumes)\b"
        ),
        examples=(
            "docker rm -fv $(docker ps -aq)",
            "docker rm --force web",
            "docker compose down -v",
        ),
        lookalikes=("docker compose down && docker compose up -d",),
    ),
    TextRule(
        id="destroys-data.fork-bomb",
        category=_CATEGORY,
        description="A fork bomb: a function that pipes into itself in the background.",
        pattern=(
            r":\(\)\s*\{\s*:\|:&\s*\}\s*;"
            r"|\b(?P<bomb>\w+)\s*\(\)\s*\{\s*(?P=bomb)\s*\|\s*(?P=bomb)\s*&\s*\}\s*;"
        ),
        examples=(
            "boom(){ boom|boom& };boom",
            ":(){ :|:& };:",
        ),
        lookalikes=("restart_consumers() { systemctl restart consumer@1; }",),
    ),
    TextRule(
        id="destroys-data.kill-everything",
        category=_CATEGORY,
        description="Every process killed, init killed, or the kernel told to crash or reboot.",
        pattern=(
            r"\becho\s+[cbo]\s*>\s*/proc/sysrq-trigger"
            r"|\bkill\s+-(9|kill|s\s+kill)\s+-1\b"
            r"|\bkill\s+-(9|kill|s\s+kill)\s+1\b"
            r"|\bkillall5\b"
            r"|\bpkill\s+(\S+\s+)*-u\s+root\b"
        ),
        examples=(
            "kill -9 -1",
            "kill -9 1",
            "pkill -KILL -u root",
            "echo c > /proc/sysrq-trigger",
            "killall5 -9",
        ),
        lookalikes=("kill -9 4242",),
    ),
    TextRule(
        id="destroys-data.crontab-removed",
        category=_CATEGORY,
        description="Every scheduled job of a user removed or emptied (crontab -r, an empty crontab, schtasks /delete *).",
        pattern=(
            r"\bcrontab\s+(-u\s+\S+\s+)?-[a-qs-z]*r\b"
            r"|\bcrontab\s+(-u\s+\S+\s+)?(/dev/null|-\s*<\s*/dev/null)\b"
            r"|\b(echo|printf|true)(\s+(['\"]{2}|-n))?\s*\|\s*crontab\s+(-u\s+\S+\s+)?-(\s|$)"
            r"|\bschtasks(\.exe)?\s+/delete\s+/tn\s+['\"]?\*"
            r"|\batrm\s+\$\(atq"
        ),
        examples=(
            "crontab -r",
            "crontab -u postgres -r",
            "crontab -ir",
            "crontab /dev/null",
            "echo '' | crontab -",
            "schtasks /delete /tn * /f",
            "atrm $(atq | cut -f1)",
        ),
        lookalikes=(
            "crontab -l shows the backup job at 02:00.",
            "crontab -e and fix the backup job's schedule.",
            "crontab -l > /tmp/cron.bak",
            "schtasks /query /tn nightly-backup",
        ),
    ),
    TextRule(
        id="destroys-data.essential-packages",
        category=_CATEGORY,
        description="The system's own packages removed (the kernel, libc, systemd, sudo, a database server), or removed without their dependents.",
        pattern=(
            r"\b(yum|dnf|apt|apt-get|zypper|apk|pacman)\s+(\S+\s+)*(remove|erase|purge|autoremove|"
            r"del|-r\w*)\s+(\S+\s+)*['\"]?(kernel|linux-image|glibc|libc6|systemd|openssh|sudo|"
            r"coreutils|bash|grub|rpm|dpkg|yum|apt|python3?|openssl|ca-certificates|util-linux|"
            r"shadow-utils|passwd|pam|mysql|mariadb|postgresql|mongodb|redis)[\w.*-]*"
            r"|\brpm\s+(\S+\s+)*(-e|--erase)\s+(\S+\s+)*--nodeps\b"
            r"|\brpm\s+(\S+\s+)*--nodeps\s+(\S+\s+)*(-e|--erase)\b"
            r"|--force-remove-essential\b"
        ),
        examples=(
            "dnf erase -y systemd",
            "apt-get autoremove --purge openssh-server",
            "rpm -e --nodeps openssl-libs",
            "rpm --nodeps -e glibc",
            "dpkg --purge --force-remove-essential bash",
        ),
        lookalikes=(
            "apt-get install -y --only-upgrade openssl",
            "yum remove -y nginx-module-geoip",
        ),
    ),
    TextRule(
        id="destroys-data.accounts-removed",
        category=_CATEGORY,
        description="Accounts removed with their files, or root's.",
        pattern=(
            r"\buserdel\s+(\S+\s+)*(-r|--remove|-f|--force|root)\b"
            r"|\bdeluser\s+(\S+\s+)*--remove-(all-)?(home|files)\b"
        ),
        examples=(
            "userdel --remove deploy",
            "deluser --remove-all-files backup",
        ),
        lookalikes=("userdel svc-legacy-import",),
    ),
    TextRule(
        id="destroys-data.drop-in-words",
        category=_CATEGORY,
        description="Asked in words to drop, delete or wipe a database, table, bucket, volume, backups or every row.",
        pattern=(
            r"\b(drop|delete|truncate|purge|wipe|erase|destroy|empty)\s+(the\s+|all\s+(the\s+)?|"
            r"every\s+)?([\w-]+\s+){0,2}(tables?|databases?|dbs?|schemas?|keyspaces?|collections?|"
            r"buckets?|volumes?|backups?|snapshots?|clusters?|namespaces?|topics?|"
            r"data\s+director(y|ies)|datadir)\b(?!\s+(rows?|entries|entry|records?|keys?|objects?)"
            r"\b)"
            r"|\b(delete|remove|drop)\s+(every|all)\s+(\w+\s+)?(rows?|records?|users?|accounts?)"
            r"\s+(in|from)\b"
        ),
        examples=(
            "Drop the orders database and restore it from yesterday's dump.",
            "Delete all the old backups to free space.",
            "Remove all users from the shop schema.",
        ),
        lookalikes=(
            "Delete the stale lock from the orders table.",
            "drop the failed rows from the staging import",
        ),
    ),
    TextRule(
        id="destroys-data.every-workload-in-words",
        category=_CATEGORY,
        description="Asked in words to delete, kill or terminate every pod, node, instance or server.",
        pattern=(
            r"\b(delete|remove|kill|terminate|destroy|nuke|wipe|tear\s+down|decommission)\s+(all|"
            r"every|each)\s+(of\s+)?(the\s+|our\s+|your\s+)?(\w+\s+)?(pods?|"
            r"deployments?|nodes?|services?|containers?|instances?|vms?|servers?|replicas?|"
            r"brokers?|machines?|hosts?|droplets?|workers?|environments?|stacks?)\b(?!\s+(stuck|that|which|whose|with|older|matching|named|labell?ed|"
            r"in\s+(terminating|crashloop\w*|error|evicted|failed|completed|pending|unknown)\b))"
        ),
        examples=(
            "Terminate all the instances in the batch ASG.",
            "Kill every container on the host.",
            "Nuke all of the staging VMs.",
            "Tear down every environment except prod.",
            "Decommission all our database servers tonight.",
            "Destroy each of the worker nodes.",
        ),
        lookalikes=(
            "Delete all pods stuck in Terminating on node-4 with --grace-period=0 only if drained.",
            "Kill all containers that are in CrashLoopBackOff; kill every pod with OOM.",
        ),
    ),
)
