# fish completion for bqltool(8)
# SPDX-License-Identifier: GPL-2.0-only
#
# Nothing is typed twice: command names come from `bqltool help --commands`
# (descriptions from `bqltool help`), option names from `bqltool help
# [COMMAND]`, BQL keys and units from `bqltool help --keys`, devices and
# queues from sysfs (honouring --sysfs-root and BQLTOOL_SYSFS_ROOT) or from
# `ip -n NS link` with -n NS.

# __bqltool_opts BIN [COMMAND]: "NAME<TAB>ARG<TAB>DESCRIPTION" per option
# name, from the option lines of the help ("  -f, --format FMT   text...");
# ARG is empty without an argument and starts with "?" when it is optional.
function __bqltool_opts
    $argv[1] help $argv[2..-1] 2>/dev/null | string match -r '^ {1,6}-.*' | while read -l line
        set -l parts (string split -m1 '  ' -- (string trim -- $line))
        set -l names $parts[1]
        set -l desc (string trim -- "$parts[2]")
        set -l arg (string match -r '[ =]([A-Z][A-Z_=]*)' -- $names)[2]
        for tok in (string split -n ' ' -- (string replace -a ',' ' ' -- $names))
            switch $tok
                case '--*[=*'
                    printf '%s\t?%s\t%s\n' (string replace -r '\[.*' '' -- $tok) "$arg" $desc
                case '--*=*'
                    printf '%s\t%s\t%s\n' (string replace -r '=.*' '' -- $tok) "$arg" $desc
                case '-*'
                    printf '%s\t%s\t%s\n' $tok "$arg" $desc
            end
        end
    end
end

# __bqltool_find BIN: the program to ask, as typed; a bare name that PATH
# lacks is looked for where bqltool is installed (make install: PREFIX/sbin,
# the package: /usr/sbin), which a user's PATH often lacks (sudo bqltool <TAB>)
function __bqltool_find
    if string match -q -- '*/*' $argv[1]; or command -q -- $argv[1]
        echo $argv[1]
        return
    end
    for d in /usr/local/sbin /usr/sbin /sbin
        if test -x $d/$argv[1]
            echo $d/$argv[1]
            return
        end
    end
    echo $argv[1]
end

function __bqltool_commands
    set -l bin $argv[1]
    set -l names ($bin help --commands 2>/dev/null)
    $bin help 2>/dev/null | string match -r '^  [a-z].*' | while read -l line
        set -l w (string split -n -m1 ' ' -- (string trim -- $line))
        contains -- $w[1] $names; and printf '%s\t%s\n' $w[1] (string trim -- "$w[2]")
    end
end

# __bqltool_devices ROOT NETNS [all]: devices (with BQL, unless "all")
function __bqltool_devices
    if test -n "$argv[2]"
        # the host's rule, applied by bqltool inside the namespace
        set -l which devices
        test "$argv[3]" = all; and set which all-devices
        $__bqltool_bin -n $argv[2] help --$which 2>/dev/null
        return
    end
    for d in $argv[1]/class/net/*
        if test "$argv[3]" = all; or test -d $d/queues/tx-0/byte_queue_limits
            basename $d
        end
    end
end

# __bqltool_selectors ROOT NETNS CUR [all]: DEV, or DEV:N after a colon
function __bqltool_selectors
    if string match -q '*:*' -- $argv[3]
        set -l dev (string split -m1 : -- $argv[3])[1]
        if test -n "$argv[2]"
            # the namespace's queues, listed by bqltool inside it
            for q in ($__bqltool_bin -n $argv[2] help --queues $dev 2>/dev/null)
                echo $dev:$q
            end
            return
        end
        for q in $argv[1]/class/net/$dev/queues/tx-*
            echo $dev:(string replace -r '.*/tx-' '' -- $q)
        end | sort -t: -k2n
        return
    end
    __bqltool_devices $argv[1] $argv[2] $argv[4]
end

# __bqltool_keyvals BIN CUR: KEY= for writable keys, KEY=max for byte keys
function __bqltool_keyvals
    $argv[1] help --keys 2>/dev/null | while read -l name mode unit
        if string match -q '*=*' -- $argv[2]
            test $name = (string split -m1 = -- $argv[2])[1]; and test $unit = bytes
            and echo $name=max
        else if test $mode = rw
            printf '%s=\tBQL key (%s)\n' $name $unit
        end
    end
end

# __bqltool_value OPTION ARG CUR: the argument of an option
function __bqltool_value
    set -l cur $argv[3]
    switch $argv[1]
        case --sysfs-root --textfile
            __fish_complete_directories $cur
        case -n --netns
            ip netns list 2>/dev/null | string replace -r ' .*' ''
        case --color --colour
            printf '%s\n' auto always never
        case -f --format
            printf '%s\n' text json prometheus
        case --kernel
            printf '%s\n' 3.3 3.5 6.1 6.9 6.15 newest
        case --missing
            printf '%s\n' error skip
        case --traffic
            printf '%s\n' bulk cbr: poisson: onoff:
        case --size
            printf '%s\n' fixed: uniform: imix bimodal: tso:
        case --from
            __fish_complete_path $cur
        case --link
            printf '%s\n' 10M 100M 1G 2.5G 10G 25G 40G 100G 200G 400G
        case --qdisc
            printf '%s\n' fq_codel fq cake fifo pfifo_fast pfifo bfifo
        case -s --sort
            printf '%s\n' name limit inflight fill limit_min limit_max tx_rate \
                pkt_rate stop_rate wake_rate stall_cnt stall_max qdisc_backlog \
                qdrop_rate ring tx_usecs ring_p99 qdisc_p99 bql_stop_rate ring_stop_rate
        case --only
            __bqltool_devices $__bqltool_root $__bqltool_netns
        case --set
            __bqltool_keyvals $__bqltool_bin $cur
        case '*'
            switch $argv[2]
                case DIR
                    __fish_complete_directories $cur
                case FILE PATH
                    __fish_complete_path $cur
            end
    end
end

# __bqltool_option OPTS CUR: option names, or the value of --opt=CUR
function __bqltool_option
    set -l cur $argv[-1]
    set -l opts $argv[1..-2]
    if string match -q -- '--*=*' $cur
        set -l name (string split -m1 = -- $cur)[1]
        for o in $opts
            set -l f (string split \t -- $o)
            test $f[1] = $name; or continue
            __bqltool_value $name (string trim -l -c '?' -- $f[2]) (string split -m1 = -- $cur)[2] |
                string replace -r -- '^' "$name="
            return
        end
        return
    end
    for o in $opts
        set -l f (string split \t -- $o)
        printf '%s\t%s\n' $f[1] $f[3]
    end
end

# the argument taken by option $argv[1] per OPTS ($argv[2..]); "" if none
function __bqltool_optarg
    for o in $argv[2..-1]
        set -l f (string split \t -- $o)
        test "$f[1]" = $argv[1]; and echo $f[2]; and return
    end
end

function __bqltool_complete
    set -l toks (commandline -opc)
    set -l cur (commandline -ct)
    set -g __bqltool_bin (__bqltool_find (string replace -r '^~' $HOME -- $toks[1]))
    set -g __bqltool_root /sys
    set -g __bqltool_netns
    test -n "$BQLTOOL_SYSFS_ROOT"; and set __bqltool_root $BQLTOOL_SYSFS_ROOT
    set -l gopts (__bqltool_opts $__bqltool_bin)
    set -l cmd
    set -l i 2
    # global options before the command; remember --sysfs-root and -n
    while test $i -le (count $toks)
        set -l t $toks[$i]
        switch $t
            case '--sysfs-root=*'
                set __bqltool_root (string split -m1 = -- $t)[2]
            case '--netns=*'
                set __bqltool_netns (string split -m1 = -- $t)[2]
            case '-*'
                set -l a (__bqltool_optarg $t $gopts)
                if test -n "$a"; and not string match -q '[?]*' -- $a
                    if test $i -eq (count $toks)
                        __bqltool_value $t $a $cur
                        return
                    end
                    set i (math $i + 1)
                    contains -- $t --sysfs-root; and set __bqltool_root $toks[$i]
                    contains -- $t -n --netns; and set __bqltool_netns $toks[$i]
                end
            case '*'
                set cmd $t
                break
        end
        set i (math $i + 1)
    end
    if test -z "$cmd"
        if string match -q -- '-*' $cur
            __bqltool_option $gopts $cur
        else
            __bqltool_commands $__bqltool_bin
        end
        return
    end

    # an exact name or a unique prefix, as bqltool accepts it
    set -l names ($__bqltool_bin help --commands 2>/dev/null)
    if not contains -- $cmd $names
        set -l m (string match -- "$cmd*" $names)
        test (count $m) -eq 1; and set cmd $m
    end
    set -l copts (__bqltool_opts $__bqltool_bin $cmd)
    # global options may follow the command (bqltool show -n NS eth0): -n
    # and --sysfs-root there count too (top's and record's own -n is the same)
    set -l k (math $i + 1)
    while test $k -le (count $toks)
        set -l t $toks[$k]
        switch $t
            case '--sysfs-root=*'
                set __bqltool_root (string split -m1 = -- $t)[2]
            case '--netns=*'
                set __bqltool_netns (string split -m1 = -- $t)[2]
            case -n --netns --sysfs-root
                if test $k -lt (count $toks)
                    set k (math $k + 1)
                    if test $t = --sysfs-root
                        set __bqltool_root $toks[$k]
                    else
                        set __bqltool_netns $toks[$k]
                    end
                end
        end
        set k (math $k + 1)
    end
    set -l last $toks[-1]
    if test $i -lt (count $toks)
        if contains -- $last -n --netns --sysfs-root
            __bqltool_value $last GLOBAL $cur
            return
        end
        set -l a (__bqltool_optarg $last $copts)
        if test -n "$a"; and not string match -q '[?]*' -- $a
            __bqltool_value $last $a $cur
            return
        end
    end
    if string match -q -- '-*' $cur
        __bqltool_option $copts $cur
        return
    end
    switch $cmd
        case help
            __bqltool_commands $__bqltool_bin
        case replay apply
            __fish_complete_path $cur
        case sim
            # options only
        case set
            if string match -q '*=*' -- $cur
                __bqltool_keyvals $__bqltool_bin $cur
                return
            end
            __bqltool_selectors $__bqltool_root "$__bqltool_netns" $cur
            # keys once a selector is on the line (an option's argument is none)
            set -l skip 0
            for t in $toks[(math $i + 1)..-1]
                if test $skip -eq 1
                    set skip 0
                    continue
                end
                if contains -- $t -n --netns --sysfs-root
                    set skip 1
                    continue
                end
                string match -q -- '-*' $t; or string match -q '*=*' -- $t; and continue
                __bqltool_keyvals $__bqltool_bin ''
                break
            end
        case check
            __bqltool_selectors $__bqltool_root "$__bqltool_netns" $cur all
        case '*'
            __bqltool_selectors $__bqltool_root "$__bqltool_netns" $cur
    end
end

complete -c bqltool -e
complete -c bqltool -f -a '(__bqltool_complete)'
