# What /etc/init.d/chessclockd and /etc/init.d/chessclock-bridge share (sourced by both,
# installed as /usr/lib/chessclockd/init-common.sh): start, stop, status and reload of one
# service on a host without systemd, doing what its unit does (docs/install.md, "Without
# systemd"). On a host with systemd the scripts never get here: /lib/lsb/init-functions hands
# every action to systemctl and the unit.
#
# The script sets, before sourcing this file:
#   NAME DESC DAEMON        the service, its description and its program
#   RUN_USER RUN_GROUP      User= and Group= (supplementary groups: the user's, from
#                           /etc/group, as SupplementaryGroups= names them)
#   RUN_UMASK               UMask=
#   PIDFILE LOG             where its pid and its output go (journalctl -u becomes the log)
#   BUS_NAME                the name it takes on the system bus once it is ready
#   RUN_ENV                 variables its unit gives it (RUNTIME_DIRECTORY=...), or empty
#   START_TIMEOUT           seconds `start` waits for BUS_NAME (TimeoutStartSec=)
#   STOP_SCHEDULE           start-stop-daemon's --retry (TimeoutStopSec=, then SIGKILL)
#   DAEMON_ARGS             arguments (empty; /etc/default/NAME may set them)
# and defines svc_dirs (the directories its unit creates, with their owners and modes).
#
# Exit codes are the LSB's: 0 done; 1 failed; 3 not running (status) or not implemented;
# 4 not allowed (not root).

# Whether process $1 is alive: it exists and is not a zombie (a container's PID 1 may not
# reap the dead).
svc_alive() {
    _state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
    case "$_state" in '' | Z | X) return 1 ;; esac
}

# The pid of the running service: the pid in PIDFILE, if that process is alive and runs as
# RUN_USER. Nothing otherwise.
svc_pid() {
    [ -r "$PIDFILE" ] || return 1
    read -r _pid <"$PIDFILE" 2>/dev/null || return 1
    case "$_pid" in '' | *[!0-9]*) return 1 ;; esac
    svc_alive "$_pid" || return 1
    _uid=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$_pid/status" 2>/dev/null)
    [ "$_uid" = "$(id -u "$RUN_USER" 2>/dev/null)" ] || return 1
    echo "$_pid"
}

# The pid of the connection that owns BUS_NAME on the system bus, if one does.
svc_bus_owner() {
    dbus-send --system --print-reply=literal --reply-timeout=2000 \
        --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID "string:$BUS_NAME" 2>/dev/null |
        sed -n 's/^[[:space:]]*uint32[[:space:]]*\([0-9]*\).*/\1/p'
}

# The log's lines written since byte $1 (this start's), the last ten, indented.
svc_log_since() {
    _lines=$(tail -c +"$(($1 + 1))" "$LOG" 2>/dev/null | tail -n 10)
    echo "${_lines:-(none)}" | sed 's/^/  /'
}

svc_need_root() {
    [ "$(id -u)" = 0 ] && return 0
    log_failure_msg "$NAME: only root may $1 it (sudo service $NAME $1)"
    return 4
}

svc_start() {
    svc_need_root start || return 4
    if _running=$(svc_pid); then
        log_success_msg "$NAME is running already (pid $_running)"
        return 0
    fi
    rm -f "$PIDFILE"
    svc_dirs || return 1
    # The log (journalctl -u NAME under systemd): root's, readable by group adm as Debian's
    # logs are; appended to, never truncated.
    [ -e "$LOG" ] || install -m 0640 -o root -g adm /dev/null "$LOG" || return 1
    _offset=$(stat -c %s "$LOG")
    log_daemon_msg "Starting $DESC" "$NAME"
    # A clean environment, as the unit's: only PATH and what the unit sets.
    # shellcheck disable=SC2086 # RUN_ENV and DAEMON_ARGS are word lists.
    if ! env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $RUN_ENV \
        start-stop-daemon --start --quiet --background --make-pidfile --pidfile "$PIDFILE" \
        --chuid "$RUN_USER:$RUN_GROUP" --umask "$RUN_UMASK" --output "$LOG" \
        --exec "$DAEMON" -- $DAEMON_ARGS; then
        log_end_msg 1
        echo "$NAME: start-stop-daemon could not start $DAEMON" >&2
        return 1
    fi
    # The new process (still root for a moment: start-stop-daemon changes its user as it
    # execs the program).
    read -r _pid <"$PIDFILE"
    if ! command -v dbus-send >/dev/null; then
        # Without dbus-send (package dbus-bin) the bus cannot be asked: a second alive is all
        # that is known.
        sleep 1
        if svc_alive "$_pid"; then
            log_end_msg 0
            echo "$NAME: started; whether it took $BUS_NAME is not known (no dbus-send here:" \
                "apt install dbus-bin)" >&2
            return 0
        fi
    fi
    # Ready when its own pid owns its bus name (what it takes last, once its clocks are
    # attached); failed when it exits first; stopped when it takes longer than START_TIMEOUT.
    _tenths=0
    while svc_alive "$_pid"; do
        if [ "$(svc_bus_owner)" = "$_pid" ]; then
            log_end_msg 0
            return 0
        fi
        if [ "$_tenths" -ge "$((START_TIMEOUT * 10))" ]; then
            log_end_msg 1
            echo "$NAME did not take $BUS_NAME on the system bus within $START_TIMEOUT s," \
                "so it was stopped. Its last lines in $LOG:" >&2
            svc_log_since "$_offset" >&2
            start-stop-daemon --stop --quiet --oknodo --retry "$STOP_SCHEDULE" \
                --pidfile "$PIDFILE" --user "$RUN_USER" --remove-pidfile
            return 1
        fi
        sleep 0.2
        _tenths=$((_tenths + 2))
    done
    log_end_msg 1
    rm -f "$PIDFILE"
    echo "$NAME exited as it started. Its last lines in $LOG:" >&2
    svc_log_since "$_offset" >&2
    return 1
}

# Stop the service (SIGTERM, SIGKILL after TimeoutStopSec=), as `systemctl stop` does.
svc_stop() {
    svc_need_root stop || return 4
    log_daemon_msg "Stopping $DESC" "$NAME"
    start-stop-daemon --stop --quiet --oknodo --retry "$STOP_SCHEDULE" \
        --pidfile "$PIDFILE" --user "$RUN_USER" --remove-pidfile
    _rc=$?
    log_end_msg "$_rc"
    return "$_rc"
}

# LSB status: 0 running, 1 dead with a pid file left, 3 not running.
svc_status() {
    if _running=$(svc_pid); then
        if ! command -v dbus-send >/dev/null; then
            log_success_msg "$NAME is running (pid $_running)"
        elif [ "$(svc_bus_owner)" = "$_running" ]; then
            log_success_msg "$NAME is running (pid $_running) and owns $BUS_NAME"
        else
            log_success_msg "$NAME is running (pid $_running) but does not own $BUS_NAME" \
                "on the system bus (yet?); see $LOG"
        fi
        return 0
    fi
    if [ -e "$PIDFILE" ]; then
        log_failure_msg "$NAME is not running, but $PIDFILE is left: it stopped on its own" \
            "(why: $LOG)"
        return 1
    fi
    log_failure_msg "$NAME is not running"
    return 3
}
