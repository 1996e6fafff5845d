// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * signing (internal) - reading what an ELF file carries: its policy and signature
 * sections, and its digest (signed-elf-format.h).
 *
 * The bytes are read once for the digest; on the way, the headers are copied out and
 * compared with what libelf parsed, and umbrella's two sections are taken from there, so
 * that what is verified is what was parsed even if the file changes meanwhile.
 */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "digest.h"
#include "elf-layout.h"
#include "policy-section.h"
#include "signed-elf.h"
#include "signing-error.h"

#define CHUNK (256 * 1024) /* bytes hashed between deadline checks */

static int check_signature(const struct umb_signature *sig, char **ret_error)
{
	if (memcmp(sig->magic, UMB_SIGNATURE_MAGIC, sizeof(sig->magic)))
		return set_error(ret_error, "bad magic in " UMB_SIGNATURE_SECTION);
	if (sig->version != UMB_SIGNATURE_VERSION)
		return set_error(ret_error, UMB_SIGNATURE_SECTION " has unknown version %u",
				 sig->version);
	return 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* A part of the file to copy out while hashing. */
struct region {
	uint64_t off, len;
	uint8_t *dst; /* NULL: none */
};

/* Copies the part of @r that chunk [@coff, @coff + @clen) holds. */
static void capture(const struct region *r, const uint8_t *chunk, uint64_t coff, uint64_t clen)
{
	uint64_t from = r->off > coff ? r->off : coff;
	uint64_t to = r->off + r->len < coff + clen ? r->off + r->len : coff + clen;

	if (from < to)
		memcpy(r->dst + (from - r->off), chunk + (from - coff), to - from);
}

/*
 * An incremental read (struct signed_elf_reader): the headers parsed, then the file
 * hashed a piece at a time, so that a caller can serve others between the pieces.
 */
struct signed_elf_reader {
	int fd;
	struct signed_elf *ret;
	struct layout l;
	uint8_t ehdr[sizeof(Elf64_Ehdr)], *policy, *shdrs, *names;
	struct region regions[5];
	struct signed_digest digest;
	uint8_t *buf;
	uint64_t off; /* bytes hashed so far */
};

void signed_elf_reader_free(struct signed_elf_reader *r)
{
	if (!r)
		return;
	free(r->policy);
	free(r->shdrs);
	free(r->names);
	elf_layout_release(&r->l);
	signed_digest_release(&r->digest);
	free(r->buf);
	free(r);
}

/* Hashes one chunk at r->off, copying the regions out of it. */
static int hash_chunk(struct signed_elf_reader *r, char **ret_error)
{
	uint64_t size = r->ret->size, off = r->off;
	size_t want = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
	uint8_t *buf = r->buf;
	ssize_t n;

	do
		n = pread(r->fd, buf, want, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		set_error(ret_error, "read: %s", strerror(errno));
		return err;
	}
	if (n == 0) {
		set_error(ret_error, "the file shrank while it was read");
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(r->regions) / sizeof(r->regions[0]); i++)
		if (r->regions[i].dst)
			capture(&r->regions[i], buf, off, (uint64_t)n);
	if (signed_digest_update(&r->digest, off, buf, (size_t)n) < 0)
		return -ENOMEM;
	r->off += (uint64_t)n;
	return 0;
}

/* The whole file hashed: the digest, and the checks on what was copied out of it. */
static int reader_finish(struct signed_elf_reader *r, char **ret_error)
{
	struct signed_elf *ret = r->ret;
	struct layout *l = &r->l;
	int err;

	if (signed_digest_final(&r->digest, ret->digest) < 0)
		return -ENOMEM;
	if (!ret->is_elf)
		return 0;
	/* The bytes hashed must be the ones parsed: a file that changed in between is
	 * refused rather than judged on one version and hashed on another. */
	if (memcmp(r->ehdr, &l->ehdr, sizeof(r->ehdr)) ||
	    (r->shdrs && memcmp(r->shdrs, l->shdrs, l->shnum * sizeof(Elf64_Shdr))) ||
	    (r->names && memcmp(r->names, l->names, l->names_len)))
		return set_error(ret_error, "the file changed while it was read");
	if (l->sig >= 0) {
		ret->has_signature = true;
		err = check_signature(&ret->signature, ret_error);
		if (err < 0)
			return err;
	}
	if (r->policy) {
		err = policy_section_check(r->policy, l->policy_shdr.sh_size, &ret->policy_text,
					   ret_error);
		if (err < 0)
			return err;
		ret->has_policy = true;
	}
	return 0;
}

/* A failure: the message for ENOMEM, and nothing left allocated. */
static int reader_fail(struct signed_elf_reader *r, struct signed_elf *ret, int err,
		       char **ret_error)
{
	if (err == -ENOMEM && ret_error && !*ret_error)
		set_error(ret_error, "%s", strerror(ENOMEM));
	signed_elf_reader_free(r);
	signed_elf_release(ret);
	return err;
}

int signed_elf_step(struct signed_elf_reader *r, uint64_t max_bytes, char **ret_error)
{
	uint64_t end = r->off + max_bytes;
	int err;

	if (ret_error)
		*ret_error = NULL;
	while (r->off < r->ret->size && r->off < end) {
		err = hash_chunk(r, ret_error);
		if (err < 0)
			goto fail;
	}
	if (r->off < r->ret->size)
		return 1;
	err = reader_finish(r, ret_error);
	if (err < 0)
		goto fail;
	signed_elf_reader_free(r);
	return 0;
fail:
	return reader_fail(r, r->ret, err, ret_error);
}

uint64_t signed_elf_read_bytes(const struct signed_elf_reader *r)
{
	return r->off;
}

void signed_elf_release(struct signed_elf *e)
{
	if (!e)
		return;
	free(e->policy_text);
	*e = (struct signed_elf){};
}

int signed_elf_begin(int fd, unsigned int flags, struct signed_elf *ret,
		     struct signed_elf_reader **ret_reader, char **ret_error)
{
	/* The ELF header and the signature mark after it (zeros past a short file's end). */
	unsigned char ident[UMB_SIGNATURE_MARK_HEAD] = {};
	struct signed_elf_reader *r;
	struct layout *l;
	struct stat st;
	Elf *elf = NULL;
	ssize_t n;
	int err;

	*ret = (struct signed_elf){};
	*ret_reader = NULL;
	if (ret_error)
		*ret_error = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return reader_fail(r, ret, -ENOMEM, ret_error);
	r->fd = fd;
	r->ret = ret;
	l = &r->l;
	*l = (struct layout){ .policy = -1, .sig = -1 };
	if (fstat(fd, &st) < 0) {
		err = -errno;
		set_error(ret_error, "fstat: %s", strerror(errno));
		return reader_fail(r, ret, err, ret_error);
	}
	if (!S_ISREG(st.st_mode)) {
		set_error(ret_error, "not a regular file");
		return reader_fail(r, ret, -EINVAL, ret_error);
	}
	ret->size = (uint64_t)st.st_size;

	do
		n = pread(fd, ident, sizeof(ident), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		err = -errno;
		set_error(ret_error, "read: %s", strerror(errno));
		return reader_fail(r, ret, err, ret_error);
	}
	ret->is_elf = n >= SELFMAG && !memcmp(ident, ELFMAG, SELFMAG);
	if (ret->is_elf) {
		err = elf_check_ident(ident, ret->size, ret_error);
		if (err < 0)
			return reader_fail(r, ret, err, ret_error);
		(void)elf_version(EV_CURRENT);
		/* ELF_C_READ: libelf reads the headers it is asked for, not the file. */
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!elf) {
			err = set_error(ret_error, "not a valid ELF file: %s", elf_errmsg(-1));
			return reader_fail(r, ret, err, ret_error);
		}
		err = elf_layout_parse(elf, ret->size, l, ret_error);
		elf_end(elf);
		if (err < 0)
			return reader_fail(r, ret, err, ret_error);
		/* A file that claims a signature has one, or none of its execs may run: BPF
		 * refuses it on a miss, and the gate must not let it run as unsigned. */
		ret->marked = umb_elf_marked(ident);
		if (ret->marked && l->sig < 0) {
			err = set_error(
				ret_error,
				"it carries the signature mark but no " UMB_SIGNATURE_SECTION
				" section");
			return reader_fail(r, ret, err, ret_error);
		}
	}
	/* No signature section: unsigned, whatever the rest holds, decided on the headers. */
	if (l->sig < 0 && !(flags & SIGNED_ELF_DIGEST_ALWAYS)) {
		signed_elf_reader_free(r);
		return 0;
	}
	if (ret->size > SIGNED_ELF_SIZE_MAX) {
		set_error(ret_error, "%llu bytes, more than the limit of %llu",
			  (unsigned long long)ret->size, SIGNED_ELF_SIZE_MAX);
		return reader_fail(r, ret, -EFBIG, ret_error);
	}
	if (ret->is_elf) {
		/* What to copy out of the hashed bytes: the headers libelf parsed, to
		 * compare, and the policy, whose text is taken from there. The signature
		 * is the skipped range, copied as region 0. */
		r->regions[0] =
			(struct region){ .off = l->sig_shdr.sh_offset,
					 .len = l->sig >= 0 ? sizeof(ret->signature) : 0,
					 .dst = l->sig >= 0 ? (uint8_t *)&ret->signature : NULL };
		r->regions[1] = (struct region){ .off = 0, .len = sizeof(r->ehdr), .dst = r->ehdr };
		if (l->shnum) {
			r->shdrs = malloc(l->shnum * sizeof(Elf64_Shdr));
			r->regions[2] = (struct region){ .off = l->ehdr.e_shoff,
							 .len = l->shnum * sizeof(Elf64_Shdr),
							 .dst = r->shdrs };
		}
		if (l->names) {
			r->names = malloc(l->names_len ? l->names_len : 1);
			r->regions[3] = (struct region){ .off = l->names_off,
							 .len = l->names_len,
							 .dst = r->names };
		}
		if (l->policy >= 0) {
			r->policy = malloc(l->policy_shdr.sh_size);
			r->regions[4] = (struct region){ .off = l->policy_shdr.sh_offset,
							 .len = l->policy_shdr.sh_size,
							 .dst = r->policy };
		}
		if ((l->shnum && !r->shdrs) || (l->names && !r->names) ||
		    (l->policy >= 0 && !r->policy))
			return reader_fail(r, ret, -ENOMEM, ret_error);
	}
	r->buf = malloc(CHUNK);
	if (!r->buf || signed_digest_init(&r->digest, l->sig >= 0 ? l->sig_shdr.sh_offset : 0,
					  l->sig >= 0 ? l->sig_shdr.sh_size : 0) < 0)
		return reader_fail(r, ret, -ENOMEM, ret_error);
	*ret_reader = r;
	return 0;
}

int signed_elf_read(int fd, uint64_t deadline_usec, struct signed_elf *ret, char **ret_error)
{
	struct signed_elf_reader *r;
	int err;

	err = signed_elf_begin(fd, SIGNED_ELF_DIGEST_ALWAYS, ret, &r, ret_error);
	while (err == 0 && r) {
		if (deadline_usec && now_usec() > deadline_usec) {
			set_error(ret_error, "verification took too long (%llu of %llu bytes read)",
				  (unsigned long long)r->off, (unsigned long long)ret->size);
			return reader_fail(r, ret, -ETIMEDOUT, ret_error);
		}
		err = signed_elf_step(r, CHUNK, ret_error);
		if (err == 1)
			err = 0;
		else
			r = NULL;
	}
	return err;
}
