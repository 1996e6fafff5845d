/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the prefilter of the fs rules (umb_fs_filter), kept exact by counting */
#ifndef UMBRELLA_FS_FILTER_H
#define UMBRELLA_FS_FILTER_H

#include <stdint.h>

#include <umbrella/bpf-abi.h>

/*
 * umb_fs_filter is a bitmap that the hooks read before they look an inode up
 * (include/umbrella/bpf-abi.h). Each bit may stand for many entries of umb_fs_inodes
 * (hash collisions, and the dev bit of every entry on a file system), so umbrellad
 * counts the entries behind each bit: a bit is set before the first entry behind it is
 * written and cleared after the last one is deleted, so a clear bit always means "no
 * entry" (never a false "no rule"). The counts live in umbrellad's memory only and are
 * rebuilt from umb_fs_inodes when it starts (layers_adopt()).
 */
struct fs_filter {
	struct umb_fs_filter *map; /* the map, mapped (BPF_F_MMAPABLE) */
	uint32_t *counts;	   /* entries behind each bit (pages touched only when used) */
};

/* Maps umb_fs_filter (@map_fd). Return: 0 or -errno. */
int fs_filter_open(struct fs_filter *f, int map_fd);
void fs_filter_close(struct fs_filter *f);

/* Counts an entry on the inode (@dev, @ino): call before the entry is written. */
void fs_filter_add(struct fs_filter *f, uint32_t dev, uint64_t ino);

/* Uncounts an entry on the inode (@dev, @ino): call after the entry is deleted. */
void fs_filter_remove(struct fs_filter *f, uint32_t dev, uint64_t ino);

/* Clears every bit that no counted entry stands behind (at start, once every entry in
 * the map has been counted: bits a killed umbrellad left). Return: the bits cleared. */
unsigned int fs_filter_trim(struct fs_filter *f);

#endif /* UMBRELLA_FS_FILTER_H */
