#!/usr/bin/env bash
# Start the servers the tests talk to, on loopback only:
#   redis    Redis on 127.0.0.1:6379, keeping nothing on disk
#   mariadb  MariaDB on 127.0.0.1:3306, database `test`, root logs in over TCP with an empty password
#   chromium headless Chromium (no server: the binary the report test renders report.html with)
#
# Usage: scripts/services.sh [redis] [mariadb] [chromium]  (redis and mariadb when none is given)
#
# For each service: when its port answers it is left alone; otherwise it is started, and first
# installed from Debian's packages when its server is missing and installing is allowed (running
# as root, and HARNESS_SERVICES_INSTALL is not "0"). Chromium is only installed, the same way,
# and checked to run (--version). One status line per service; the exit status is 1 when a wanted
# service still does not answer (or Chromium does not run), 2 on a usage error.
set -u

HOST=127.0.0.1
REDIS_PORT=6379
MARIADB_PORT=3306
WAIT_S=${HARNESS_SERVICES_WAIT_S:-60}
MARIADB_DATADIR=/var/lib/mysql
LOG_DIR=${TMPDIR:-/tmp}

say() { printf '%s\n' "$*"; }
is_root() { [ "$(id -u)" = 0 ]; }

answers() { # answers PORT: something accepts TCP connections on HOST:PORT
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

wait_for() { # wait_for PORT: up to WAIT_S seconds
  local tries=$((WAIT_S * 2))
  while [ "$tries" -gt 0 ]; do
    answers "$1" && return 0
    sleep 0.5
    tries=$((tries - 1))
  done
  return 1
}

may_install() {
  is_root && [ "${HARNESS_SERVICES_INSTALL:-1}" != 0 ] && command -v apt-get >/dev/null 2>&1
}

apt_updated=0
install_packages() { # install_packages SERVICE PACKAGE...: apt-get, or say how and fail
  local service=$1
  shift
  if ! may_install; then
    say "$service: not installed; install it with: sudo apt-get install -y $*" \
      "(this script does it when run as root with HARNESS_SERVICES_INSTALL unset or 1)"
    return 1
  fi
  local log="$LOG_DIR/harness-services-apt.log"
  say "$service: installing $* with apt-get (log: $log)"
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq >"$log" 2>&1 || { say "$service: apt-get update failed, see $log"; return 1; }
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$log" 2>&1 ||
    { say "$service: apt-get install $* failed, see $log"; return 1; }
}

# ----------------------------------------------------------------------------------- redis

start_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    install_packages redis redis-server || return 1
  fi
  local dir logfile
  if is_root; then
    dir=/var/lib/redis
    logfile=/var/log/redis/harness.log
  else
    dir="$LOG_DIR/harness-redis"
    logfile="$dir/redis.log"
  fi
  mkdir -p "$dir" "$(dirname "$logfile")"
  # A package install may have started one already: then this start fails, but the port answers.
  if ! redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
    --appendonly no --dir "$dir" --logfile "$logfile" >/dev/null 2>&1; then
    WAIT_S=5
  fi
  wait_for "$REDIS_PORT" || { say "redis: DOWN, $HOST:$REDIS_PORT does not answer (log: $logfile)"; return 1; }
  say "redis: started on $HOST:$REDIS_PORT (log: $logfile)"
}

ensure_redis() {
  if answers "$REDIS_PORT"; then
    say "redis: up on $HOST:$REDIS_PORT"
  else
    start_redis
  fi
}

# --------------------------------------------------------------------------------- mariadb

mariadb_client() { # the client binary: mariadb, or mysql on older installs
  if command -v mariadb >/dev/null 2>&1; then echo mariadb; else echo mysql; fi
}

tcp_login() { # root with an empty password over TCP, into database `test`
  "$(mariadb_client)" --protocol=TCP -h"$HOST" -P"$MARIADB_PORT" -uroot --password= \
    -e "SELECT 1" test >/dev/null 2>&1
}

start_mariadb() {
  if [ ! -x /usr/sbin/mariadbd ]; then
    install_packages mariadb mariadb-server mariadb-client || return 1
  fi
  if ! is_root; then
    say "mariadb: not running on $HOST:$MARIADB_PORT; start it as root: sudo $0 mariadb"
    return 1
  fi
  local log="$LOG_DIR/harness-services-mariadb.log"
  # MariaDB keeps its temporary files in its own tmpdir, not in a caller's private TMPDIR.
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  if [ ! -d "$MARIADB_DATADIR/mysql" ]; then
    local install_db=mariadb-install-db
    command -v "$install_db" >/dev/null 2>&1 || install_db=mysql_install_db
    say "mariadb: initialising $MARIADB_DATADIR"
    env -u TMPDIR "$install_db" --user=mysql --datadir="$MARIADB_DATADIR" >"$log" 2>&1 ||
      { say "mariadb: $install_db failed, see $log"; return 1; }
  fi
  env -u TMPDIR start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- \
    --user=mysql --datadir="$MARIADB_DATADIR" --bind-address="$HOST" --port="$MARIADB_PORT" \
    >>"$log" 2>&1 || { say "mariadb: start-stop-daemon failed, see $log"; return 1; }
  wait_for "$MARIADB_PORT" || { say "mariadb: DOWN, $HOST:$MARIADB_PORT does not answer (log: $log)"; return 1; }
}

# Database `test`, and root's TCP login with an empty password beside the socket login a Debian
# install gives root. Idempotent; through the socket, as the OS root user.
socket_sql() { # socket_sql SQL: as root through the socket, retrying while the server starts
  local client tries=20
  client=$(mariadb_client)
  while [ "$tries" -gt 0 ]; do
    "$client" -uroot -e "$1" >/dev/null 2>&1 && return 0
    sleep 0.5
    tries=$((tries - 1))
  done
  return 1
}

prepare_mariadb() {
  tcp_login && return 0
  socket_sql "CREATE DATABASE IF NOT EXISTS test;
    ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password
    USING PASSWORD('')" || return 1
  tcp_login && return 0
  # With skip-name-resolve a TCP login from 127.0.0.1 does not match 'root'@'localhost'.
  socket_sql "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
    ALTER USER 'root'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
    GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
}

ensure_mariadb() {
  local state="up"
  if ! answers "$MARIADB_PORT"; then
    start_mariadb || return 1
    state="started"
  fi
  prepare_mariadb
  if tcp_login; then
    say "mariadb: $state on $HOST:$MARIADB_PORT, root logs in over TCP, database test"
  else
    say "mariadb: $HOST:$MARIADB_PORT answers but root cannot log in over TCP with an empty" \
      "password into database test (run this script as root to set that up)"
    return 1
  fi
}

# -------------------------------------------------------------------------------- chromium

chromium_binary() { # the first Chromium on PATH (Debian names it chromium)
  local name
  for name in chromium chromium-browser; do
    command -v "$name" >/dev/null 2>&1 && { command -v "$name"; return 0; }
  done
  return 1
}

ensure_chromium() {
  local binary version
  if ! binary=$(chromium_binary); then
    install_packages chromium chromium || return 1
    binary=$(chromium_binary) || { say "chromium: DOWN, installed but not on PATH"; return 1; }
  fi
  # --version starts no browser; the report test renders a page itself.
  if ! version=$("$binary" --version 2>/dev/null); then
    say "chromium: DOWN, $binary --version fails"
    return 1
  fi
  say "chromium: ready, $version ($binary)"
}

# ------------------------------------------------------------------------------------ main

if [ "$#" -eq 0 ]; then set -- redis mariadb; fi
for service in "$@"; do
  case $service in
    redis | mariadb | chromium) ;;
    *) say "usage: $0 [redis] [mariadb] [chromium]  (unknown service: $service)"; exit 2 ;;
  esac
done

status=0
for service in "$@"; do
  case $service in
    redis) ensure_redis || status=1 ;;
    mariadb) ensure_mariadb || status=1 ;;
    chromium) ensure_chromium || status=1 ;;
  esac
done
exit "$status"
