#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): what links the signing library (signing/meson.build). umbrellad
# verifies signed binaries and never signs one: it links umbrella-verify and not
# umbrella-sign, so that no code writing signatures or replacing files is in the
# privileged daemon. umbrella-cli links both. libumbrella.so exports the developers' API
# only, none of the internal signing library.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
lib=$build/libumbrella/libumbrella.so

# symbols FILE: its defined symbols and its imports, one name a line (no versions).
symbols() { nm "$1" 2>&1 | awk '{ print $NF }' | sed 's/@.*//'; }

out=$(symbols "$umbrellad")
grep -qx signed_elf_read <<<"$out" && grep -qx keyring_verify <<<"$out"
check $? "umbrellad links the verifier (signed_elf_read, keyring_verify)"
out=$(symbols "$umbrellad" | grep -xE 'signed_elf_sign|file_replace|EVP_DigestSign(Init)?|EVP_PKEY_sign')
[ -z "$out" ]
check $? "umbrellad has no signer: no signed_elf_sign, file_replace, EVP_DigestSign"
out=$(symbols "$cli")
grep -qx signed_elf_sign <<<"$out" && grep -qx EVP_DigestSign <<<"$out" &&
	grep -qx signed_elf_read <<<"$out"
check $? "umbrella-cli links the signer and the verifier"
out=$(nm -D --defined-only "$lib" 2>&1 | grep -E ' (signed_|keyring_|key_id_|signing_|elf_|policy_section_)')
[ -z "$out" ] && nm -D --defined-only "$lib" | grep -q ' rfork@'
check $? "libumbrella.so exports rfork and nothing of the signing library"

tap_done
