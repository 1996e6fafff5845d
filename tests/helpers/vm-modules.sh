# SPDX-License-Identifier: GPL-2.0-only
# Sourced (not executed) by VM tests that need kernel modules the test VM does not load:
#   load_module NAME   loads module NAME of the running kernel, and the modules it
#                      depends on, from the kernel package tests/vm/fetch-kernel unpacked
#                      (the guest sees the host's cache; the package has no modules.dep,
#                      so the dependencies come from each module's modinfo). Returns 0
#                      when NAME is loaded or built in, else 1 with the reason in $out.
vm_module_dir() {
	local d
	for d in "${UMBRELLA_VM_CACHE:-/var/cache/umbrella-vm}"/kernels/*/lib/modules/"$(uname -r)"; do
		[ -d "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}

load_module() { # NAME
	local name=${1//-/_} dir ko dep
	[ -d "/sys/module/$name" ] && return 0
	dir=$(vm_module_dir) || { out="no module tree for $(uname -r)"; return 1; }
	grep -q "/${1}.ko\$" "$dir/modules.builtin" 2>/dev/null && return 0
	ko=$(find "$dir/kernel" \( -name "$1.ko" -o -name "$1.ko.xz" -o -name "${name}.ko" -o \
		-name "${name}.ko.xz" \) | head -n1)
	[ -n "$ko" ] || { out="module $1 not found in $dir"; return 1; }
	for dep in $(modinfo -F depends "$ko" 2>/dev/null | tr ',' ' '); do
		load_module "$dep" || return 1
	done
	# Soft dependencies name crypto algorithms (crc32c, crypto-crc32c, blake2b-256):
	# their modules are ALGORITHM_generic. Best effort: a module may be built in.
	for dep in $(modinfo -F softdep "$ko" 2>/dev/null | tr ' ' '\n' | grep -v ':$'); do
		dep=${dep#crypto-}
		load_module "$dep" 2>/dev/null || load_module "${dep%%-*}_generic" 2>/dev/null ||
			true
	done
	out=$(insmod "$ko" 2>&1) || [ -d "/sys/module/$name" ]
}
