/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal, static: umbrellad and umbrella-cli) - reading the policy and
 * signature sections of an ELF file and its digest (include/umbrella/signed-elf-format.h); the
 * verdict on what was read is keyring_verify()'s (keyring.h), signing is in
 * signed-elf-sign.h
 */
#ifndef UMBRELLA_SIGNED_ELF_IO_H
#define UMBRELLA_SIGNED_ELF_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <umbrella/signed-elf-format.h>

/* What a file carries, as signed_elf_read() found it. */
struct signed_elf {
	bool is_elf; /* starts with the ELF magic; false: a script or data */
	bool marked; /* carries the signature mark (umb_elf_marked()); a marked
				 * file without a signature section is refused (-EBADMSG) */
	bool has_policy;
	char *policy_text; /* has_policy: the policy's text, NUL-terminated (malloc'd) */
	bool has_signature;
	struct umb_signature signature; /* has_signature: the section as read */
	uint8_t digest[32];		/* SHA-256 of the file without the signature's bytes */
	uint64_t size;			/* the file's size in bytes */
};

/*
 * signed_elf_read() - parse @fd with libelf and hash it, reading the file once
 * @fd: the file, opened for reading; read with pread() from offset 0, never re-opened
 *      by path (umbrellad passes a fanotify event's descriptor)
 * @deadline_usec: CLOCK_MONOTONIC time in microseconds after which it gives up; 0: none
 * @ret: filled in; release with signed_elf_release()
 * @ret_error: on failure, a malloc'd message saying what is wrong ("two .umbrella.sig
 *             sections", "section 5 ends beyond the end of the file")
 *
 * A file without the ELF magic is no error: is_elf is false and nothing else is set
 * (besides size and digest).
 * Return: 0; -EBADMSG for a malformed ELF file or section (wrong class or byte order,
 * bad offsets, overlaps, bad magic/version/size, two sections of a kind, a policy whose
 * text is not valid); -EFBIG beyond the size limit; -ETIMEDOUT past @deadline_usec;
 * -EIO or another -errno from reading; -ENOMEM.
 */
int signed_elf_read(int fd, uint64_t deadline_usec, struct signed_elf *ret, char **ret_error);

/* For signed_elf_begin(): compute the digest of a file without a signature section too
 * (what "umbrella-cli binary inspect" shows); without it such a file is not read. */
#define SIGNED_ELF_DIGEST_ALWAYS (1U << 0)

struct signed_elf_reader;

/*
 * signed_elf_begin() - the first half of signed_elf_read(): parse the headers of @fd
 * (the ELF header, the section headers and the section name table: never the body)
 * @ret_reader: NULL when the headers decide (a file without a signature section: not
 *              an ELF file, or unsigned; @ret is complete, its digest unset unless
 *              SIGNED_ELF_DIGEST_ALWAYS), else a reader that signed_elf_step() hashes
 *              the file with
 *
 * The size limit applies only to a file that must be hashed.
 * Return: 0, or signed_elf_read()'s -errno (nothing to free then).
 */
int signed_elf_begin(int fd, unsigned int flags, struct signed_elf *ret,
		     struct signed_elf_reader **ret_reader, char **ret_error);

/*
 * signed_elf_step() - hash at least @max_bytes more of @r's file (whole chunks: 256 KiB)
 * Return: 1 while bytes remain; 0 when the file is read and @ret (signed_elf_begin()'s)
 * complete; or signed_elf_read()'s -errno. On 0 and -errno, @r is freed.
 */
int signed_elf_step(struct signed_elf_reader *r, uint64_t max_bytes, char **ret_error);

/* How many bytes @r has hashed so far. */
uint64_t signed_elf_read_bytes(const struct signed_elf_reader *r);

/* signed_elf_reader_free() - give up a read that signed_elf_step() has not finished */
void signed_elf_reader_free(struct signed_elf_reader *r);

/* signed_elf_release() - free what signed_elf_read() allocated in @e (and zero it) */
void signed_elf_release(struct signed_elf *e);

#endif /* UMBRELLA_SIGNED_ELF_IO_H */
