/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - reading /proc/PID/mountinfo (proc(5)): what the exec gate (which file
 * systems to mark) and the fs rules (which mounts lie below a directory) both need.
 */
#ifndef UMBRELLA_MOUNTINFO_H
#define UMBRELLA_MOUNTINFO_H

/* Undoes mountinfo's octal escapes of a field (\040 for a space, \011, \012, \134) in
 * place. */
void mountinfo_unescape(char *s);

#endif /* UMBRELLA_MOUNTINFO_H */
