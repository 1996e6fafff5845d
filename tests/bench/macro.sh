#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Umbrella benchmark - the macro workload: in DIR (tmpfs), write a small C tree, compile
# it with gcc one file at a time, link and run it, then many small file operations.
# tests/bench/macro.sh DIR
set -eu
dir=${1:?usage: macro.sh DIR}
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/obj" "$dir/tmp"
export TMPDIR="$dir/tmp"
cd "$dir"

cat >src/units.h <<'EOC'
#include <stddef.h>
struct acc { long sum; size_t count; char name[32]; };
EOC
units=
for i in 1 2 3 4 5 6; do
	echo "int unit$i(struct acc *a, int x);" >>src/units.h
	cat >"src/unit$i.c" <<EOC
#include <stdio.h>
#include <string.h>
#include "units.h"

int unit$i(struct acc *a, int x)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "unit$i-%d", x * $i);
	a->sum += (long)strlen(buf) + x;
	a->count++;
	strncpy(a->name, buf, sizeof(a->name) - 1);
	return (int)(a->sum % 97);
}
EOC
	units="$units unit$i(&a, i);"
done
cat >src/main.c <<EOC
#include <stdio.h>
#include "units.h"

int main(void)
{
	struct acc a = { 0 };

	for (int i = 0; i < 100; i++) {
		$units
	}
	printf("%ld %zu %s\n", a.sum, a.count, a.name);
	return 0;
}
EOC
for f in src/*.c; do
	name=${f#src/}
	gcc -O1 -Wall -c "$f" -o "obj/${name%.c}.o"
done
gcc -o prog obj/*.o
./prog >out.txt

# Small file operations: create, append, copy, rename, list, read, delete.
mkdir files
i=0
while [ $i -lt 100 ]; do
	echo "line $i" >"files/f$i"
	echo "more $i" >>"files/f$i"
	i=$((i + 1))
done
cp -r files copy
mv copy moved
ls -lR moved >list.txt
cat files/* >all.txt
grep -c line all.txt >count.txt
find . -name 'f*' -type f | wc -l >>count.txt
for f in moved/f1*; do
	mv "$f" "$f.old"
done
rm -r files moved
cat out.txt count.txt
