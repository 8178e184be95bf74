#!/bin/sh
# Usage: expect_crash.sh REPRODUCER_NAME PROGRAM ARGS...
# Passes when PROGRAM ARGS exits non-zero (an abnormal end included) and
# its output names REPRODUCER_NAME, the input that crashed it; fails when it
# exits 0, so a replay or smoke run that misses a crash is caught.
name="$1"
shift
output="$("$@" 2>&1)"
status=$?
printf '%s\n' "$output" | tail -n 20
if [ "$status" -eq 0 ]; then
  echo "expect_crash: '$*' exited 0 on a crash reproducer" >&2
  exit 1
fi
case "$output" in
  *"$name"*) echo "expect_crash: exit status $status, $name named: as expected" ;;
  *) echo "expect_crash: exit status $status, but the output does not name $name" >&2; exit 1 ;;
esac
