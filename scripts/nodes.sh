#!/usr/bin/env bash
# scripts/nodes.sh - several nodes on one machine, for MPI runs that cross nodes for real.
#
# Each node is a Linux network namespace with its own host name (a UTS namespace), joined to
# the others by a veth pair on a bridge this script makes; Open MPI launches across them with
# this script as its remote-shell agent (plm_rsh_agent), which enters the node's namespaces
# where ssh would log in. Inside a node the nodes' names resolve as on a cluster: `ip netns exec`
# shows each node /etc/netns/NS/hosts as its /etc/hosts (made here, removed by down). Traffic stays on the bridge's private subnet: nothing leaves the
# machine (the bridge has no uplink and no route is added). Needs root, `ip` and `nsenter`.
#
#   scripts/nodes.sh up N           make nodes n1..nN (1 <= N <= 16), replacing a previous set
#   scripts/nodes.sh down           remove them: processes, namespaces, links, bridge, state
#   scripts/nodes.sh status         the nodes and their addresses (exit 1 when none are up)
#   scripts/nodes.sh hosts [SLOTS]  the --host list for mpiexec, SLOTS per node (default 1)
#   scripts/nodes.sh exec NODE CMD  run CMD inside node NODE (n1, n2, ... or its address)
#   scripts/nodes.sh mpiexec ARGS   mpiexec with the launcher agent and TCP on the bridge only;
#                                   ARGS as mpiexec's, e.g. --host "$(scripts/nodes.sh hosts 2)"
#   scripts/nodes.sh agent HOST CMD the launcher agent Open MPI calls (as it would call ssh)
#
# Several sets can live side by side (two test suites at once): LBS_NODES_PREFIX names the set
# (default lbsn, at most 6 characters: it prefixes interface names) and LBS_NODES_NET its
# /24 subnet at `up` (default 10.213.7: the bridge takes .1, node i .(10+i); `auto`: the first
# of 10.213.7 .. 10.213.254 that no route on this machine uses). The other commands take the
# subnet the set was made with. LBS_NODES_KEEPALIVE ("5 1 3"): how soon Open MPI finds a node
# gone (see mpiexec below).
#
# Example:
#   scripts/nodes.sh up 2
#   scripts/nodes.sh mpiexec -n 4 --host "$(scripts/nodes.sh hosts 2)" hostname
#   scripts/nodes.sh down
set -euo pipefail

P=${LBS_NODES_PREFIX:-lbsn}
STATE=/run/lbsim-nodes/$P
NET=${LBS_NODES_NET:-10.213.7}
[ "${1:-}" != up ] && [ -f "$STATE/net" ] && NET=$(cat "$STATE/net")
BR=${P}br
SELF=$(readlink -f "$0")

die() {
  echo "nodes.sh: $*" >&2
  exit 1
}

check_names() {
  [[ $P =~ ^[a-z][a-z0-9]{0,5}$ ]] ||
    die "LBS_NODES_PREFIX '$P': 1 to 6 lower-case letters and digits, a letter first (it prefixes interface names of 15 characters at most)"
  [ "$NET" = auto ] && return 0
  [[ $NET =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] ||
    die "LBS_NODES_NET '$NET': the first three numbers of a /24 subnet, e.g. 10.213.7"
  local x
  for x in "${BASH_REMATCH[@]:1}"; do ((x <= 255)) || die "LBS_NODES_NET '$NET': $x is not a byte"; done
}

# Why the nodes cannot be made here, before anything is touched.
can_make() {
  [ "$(id -u)" -eq 0 ] || die "up: namespaces need root (running as $(id -un))"
  command -v ip >/dev/null || die "up: no 'ip' command (Debian: iproute2)"
  command -v nsenter >/dev/null || die "up: no 'nsenter' command (Debian: util-linux)"
  local probe=${P}probe$$
  ip netns add "$probe" 2>/dev/null || die "up: cannot make a network namespace here (ip netns add failed: no CAP_SYS_ADMIN, or namespaces are disabled)"
  ip netns del "$probe"
  ip link add "${P}brprobe" type bridge 2>/dev/null || die "up: cannot make a bridge here (no bridge support in this kernel?)"
  ip link del "${P}brprobe"
}

nodes() { # the node names of the set that is up, in order
  [ -f "$STATE/nodes" ] && cat "$STATE/nodes"
  return 0
}

addr_of() { # NODE or address -> node name
  local n
  for n in $(nodes); do
    if [ "$1" = "$n" ] || [ "$1" = "$(cat "$STATE/$n.addr")" ]; then
      echo "$n"
      return 0
    fi
  done
  return 1
}

down() {
  local n ns
  for n in $(nodes) $(ls /run/netns 2>/dev/null | sed -n "s/^${P}-\(n[0-9]*\)$/\1/p"); do
    ns=$P-$n
    # every process of the node first, so that nothing holds the namespaces
    if ip netns pids "$ns" >/dev/null 2>&1; then
      ip netns pids "$ns" | xargs -r kill -KILL 2>/dev/null || true
    fi
    if [ -e "$STATE/$n.uts" ]; then
      umount "$STATE/$n.uts" 2>/dev/null || true
      rm -f "$STATE/$n.uts"
    fi
    ip link del "$P$n" 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  ip link del "$BR" 2>/dev/null || true
  rm -rf "$STATE"
}

up() {
  local N=$1 i n m ns
  [[ $N =~ ^[0-9]+$ ]] && ((N >= 1 && N <= 16)) || die "up: '$N' nodes: give 1 to 16"
  can_make
  down
  # a half-made set is removed, also when interrupted
  trap 'down; exit 130' INT TERM
  trap 'rc=$?; [ $rc -eq 0 ] || down' EXIT
  mkdir -p "$STATE"
  # one `up` at a time chooses a subnet and makes its bridge, so that two sets never share one
  exec 9>/run/lbsim-nodes/.lock
  flock 9
  if [ "$NET" = auto ]; then
    for ((i = 7; i <= 254; i++)); do
      if [ -z "$(ip -4 addr show to "10.213.$i.0/24")" ] && [ -z "$(ip -4 route show root "10.213.$i.0/24")" ]; then
        NET=10.213.$i
        break
      fi
    done
    [ "$NET" != auto ] || die "up: no free subnet in 10.213.7.0 .. 10.213.254.0 (sets left up? ls /run/lbsim-nodes)"
  elif [ -n "$(ip -4 addr show to "$NET.0/24")" ]; then
    die "up: subnet $NET.0/24 is in use on this machine ($(ip -4 -br addr show to "$NET.0/24" | head -1)); choose another LBS_NODES_NET, or auto"
  fi
  echo "$NET" >"$STATE/net"
  ip link add "$BR" type bridge
  ip addr add "$NET.1/24" dev "$BR"
  ip link set "$BR" up
  for ((i = 1; i <= N; i++)); do
    n=n$i ns=$P-n$i
    ip netns add "$ns"
    echo "$n" >>"$STATE/nodes"
    ip link add "$P$n" type veth peer name eth0 netns "$ns"
    ip link set "$P$n" master "$BR" up
    ip -n "$ns" addr add "$NET.$((10 + i))/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    echo "$NET.$((10 + i))" >"$STATE/$n.addr"
    # the node's host name: a persistent UTS namespace, bound to a file that exec enters
    touch "$STATE/$n.uts"
    unshare --uts="$STATE/$n.uts" hostname "$n"
  done
  echo "$NET.1" >"$STATE/bridge.addr"
  flock -u 9
  for n in $(nodes); do
    mkdir -p "/etc/netns/$P-$n"
    {
      printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
      for m in $(nodes); do printf '%s\t%s\n' "$(cat "$STATE/$m.addr")" "$m"; done
    } >"/etc/netns/$P-$n/hosts"
  done
  trap - INT TERM EXIT
  status
}

status() {
  [ -n "$(nodes)" ] || {
    echo "nodes.sh: no nodes up (set '$P'; 'scripts/nodes.sh up N' makes them)" >&2
    return 1
  }
  local n
  echo "bridge $BR $(cat "$STATE/bridge.addr")/24"
  for n in $(nodes); do echo "$n $(cat "$STATE/$n.addr") (namespace $P-$n)"; done
}

hosts() {
  local slots=${1:-1} n out=
  [[ $slots =~ ^[1-9][0-9]*$ ]] || die "hosts: '$slots' slots: give a positive number"
  [ -n "$(nodes)" ] || die "hosts: no nodes up (set '$P')"
  for n in $(nodes); do out+=${out:+,}$(cat "$STATE/$n.addr"):$slots; done
  echo "$out"
}

node_exec() { # NODE CMD...: CMD in the node's network and UTS namespaces
  local n
  n=$(addr_of "$1") || die "no node '$1' in set '$P' (nodes: $(nodes | tr '\n' ' '))"
  shift
  [ -e "/run/netns/$P-$n" ] || die "node $n: its namespace is gone"
  exec ip netns exec "$P-$n" nsenter --uts="$STATE/$n.uts" -- "$@"
}

case ${1:-} in
up)
  check_names
  [ $# -eq 2 ] || die "usage: nodes.sh up N"
  up "$2"
  ;;
down)
  check_names
  down
  ;;
status)
  check_names
  status
  ;;
hosts)
  check_names
  hosts "${2:-1}"
  ;;
exec)
  check_names
  [ $# -ge 3 ] || die "usage: nodes.sh exec NODE CMD..."
  shift
  node_exec "$@"
  ;;
agent)
  # Open MPI calls its agent as ssh: AGENT HOST WORDS..., the words joined into one command
  # line for the remote shell.
  check_names
  [ $# -ge 3 ] || die "agent: usage: nodes.sh agent HOST CMD..."
  host=$2
  shift 2
  node_exec "$host" /bin/sh -c "$*"
  ;;
mpiexec)
  check_names
  shift
  [ -n "$(nodes)" ] || die "mpiexec: no nodes up (set '$P')"
  # No binding unless asked: every node sees the machine's cores, so Open MPI's default
  # (--bind-to core for 2 ranks or fewer a node) binds each node's first rank to core 0, and
  # ranks on different nodes then time-share one core: a ping-pong between nodes took 2-6 ms
  # that way, against 16 us unbound (raw TCP over the bridge: 19 us, as over loopback).
  # And ranks yield when idle: each node counts the machine's cores as its own, so Open MPI
  # never sees the oversubscription and its ranks would busy-poll against each other's work.
  bind=(--bind-to none) yield=(--mca mpi_yield_when_idle 1)
  for a in "$@"; do
    [[ $a == --bind-to* ]] && bind=()
    [[ $a == mpi_yield_when_idle ]] && yield=()
  done
  # A node that disappears (its link down) sends nothing more, not even a reset: Open MPI learns
  # it from TCP keepalives on its daemons' connections, by default after 300 s idle and 9 probes
  # 20 s apart (8 minutes, during which the job hangs). Here: 5 s, then 3 probes 1 s apart, or
  # LBS_NODES_KEEPALIVE="IDLE INTERVAL PROBES".
  read -r ka_time ka_intvl ka_probes <<<"${LBS_NODES_KEEPALIVE:-5 1 3}"
  for v in "$ka_time" "$ka_intvl" "$ka_probes"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "LBS_NODES_KEEPALIVE '${LBS_NODES_KEEPALIVE:-}': three whole numbers of seconds, seconds and probes, e.g. '5 1 3'"
  done
  exec mpiexec --mca plm_rsh_agent "$SELF agent" --mca plm_rsh_no_tree_spawn 1 \
    --mca oob_tcp_keepalive_time "$ka_time" --mca oob_tcp_keepalive_intvl "$ka_intvl" \
    --mca oob_tcp_keepalive_probes "$ka_probes" \
    --mca oob_tcp_if_include "$NET.0/24" --mca btl_tcp_if_include "$NET.0/24" \
    --mca btl self,vader,tcp "${bind[@]}" "${yield[@]}" "$@"
  ;;
-h | --help | help)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  ;;
*)
  die "unknown command '${1:-}' (up, down, status, hosts, exec, mpiexec, agent; --help)"
  ;;
esac
