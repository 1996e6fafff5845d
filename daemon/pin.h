/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the pinned BPF state that outlives the daemon */
#ifndef UMBRELLA_PIN_H
#define UMBRELLA_PIN_H

#include <stdbool.h>

#include <umbrella/bpf-abi.h>

#define PIN_DIR_DEFAULT "/sys/fs/bpf/umbrella"

struct bpf_object_skeleton;

/*
 * The pin directory (on a bpf file system):
 *   umb_meta          struct umb_meta: the ABI version, pinned first; layers freed
 *   umb_layers, ...   every map of the object but the internal ones (.rodata, .bss)
 *   links/PROG        the link of each attached program, named after the program
 * The links keep the programs attached and the maps keep every restriction while no
 * umbrellad runs; the next umbrellad adopts both.
 */
struct pin {
	const char *dir;
	int dir_fd;   /* open, flock()ed: one umbrellad per pin directory */
	int meta_fd;  /* umb_meta */
	bool adopted; /* the directory held pinned state of our ABI */
	int kept;     /* pinned links pin_attach() kept (same program code) */
	struct umb_meta meta;
};

/*
 * pin_open() - claim @dir and check what is pinned there, before anything is loaded
 *
 * Creates @dir if needed, locks it, and reads umb_meta: with no pinned state, creates
 * and pins umb_meta for this ABI; with state of this ABI, @p->adopted is set; state of
 * another ABI, or objects without umb_meta, are refused (logged, naming the directory,
 * both versions and how to recover). Return: 0, -EBUSY (another umbrellad holds the
 * directory), -EPROTO (incompatible state), or another -errno.
 */
int pin_open(const char *dir, struct pin *p);

/* Sets the pin path of every non-internal map of @s, to reuse or create and pin it at
 * load time. Call between open and load. Return: 0 or -errno. */
int pin_maps(struct pin *p, const struct bpf_object_skeleton *s);

/*
 * pin_attach() - attach @s's programs, keeping the pinned links that run the same code
 *
 * For each program to load: when a link pinned under its name runs a program with the
 * same tag (the same instructions: an umbrellad of the same build), that link is kept
 * and becomes the program's link in @s (the new program is left unattached); otherwise
 * the program is attached. Replaced links are swapped by pin_links().
 * Return: 0 or -errno (logged, naming the program).
 */
int pin_attach(struct pin *p, const struct bpf_object_skeleton *s);

/*
 * pin_links() - pin the links of @s's attached programs, replacing those pinned before
 *
 * Each link is pinned under a temporary name and renamed over the old one, so that a
 * program is never without a pinned link; pinned links of programs @s no longer has
 * are removed after. Call once every program of @s is attached.
 * Return: the number of old links replaced (>= 0), or -errno (logged).
 */
int pin_links(struct pin *p, const struct bpf_object_skeleton *s);

void pin_close(struct pin *p);

/*
 * Self-protection (bpf/lib/protect.bpf.h): while umb_ctl.daemon_tgid names a live
 * umbrellad, only it may write the maps, detach the links or change the pin directory.
 * pin_identify() fills @ctl's pin_dev and pin_ino with the pin directory's inode, which
 * the caller registers with state_register_daemon() (state.h). Return: 0 or -errno.
 */
int pin_identify(const struct pin *p, struct umb_ctl *ctl);

/*
 * pin_reset() - remove everything umbrellad pinned in @dir, and @dir
 *
 * Drops the pinned links (detaching the programs no process holds) and maps: every
 * restriction in force goes. Refuses (-EBUSY) while an umbrellad holds the directory.
 * Return: 0 (also when @dir does not exist) or -errno.
 */
int pin_reset(const char *dir);

#endif /* UMBRELLA_PIN_H */
