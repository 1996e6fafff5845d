// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's signed-policy -> layer cache: the binaries that carry the
 * same policy, signed by the same key, share one layer.
 *
 * The cache is the pinned map umb_policies (key: the SHA-256 of the policy's text and
 * the key id; value: the layer id), as long-lived as the layers it names: a restarted
 * umbrellad finds the layers an earlier one made by their ids. It never reads back the
 * text of umb_layer_desc, which is for display (and holds only the start of a long
 * policy).
 *
 * The gate holds a reference on each such layer for as long as the pin directory lives:
 * a verdict cached in an inode may name it at any later exec, and verdicts cannot be
 * listed to find the last one. Signed policies are few (one per policy text and key), so
 * this is not a resource any caller can use up: only binaries signed by a trusted key
 * make one. A binary signed by a key the ring does not know runs as unsigned with its
 * restrictions, and any user can write one: its layer is charged to the file's owner
 * (root's to the restricted root's account), within umbrella.conf's per-user limits,
 * and cached under a key of its own, so that it is never taken for a known signer's.
 *
 * The layers are the main loop's (layers.c, and fs-watch.c's sources in that loop):
 * making one runs on its thread, on the gate's request (gate-bridge.c), and before the
 * gate's own thread starts. Who owns what of umb_policies: its entries are written by
 * the main thread alone (gate_policies_layer()) and deleted only by
 * gate_policies_open(), before the gate's thread starts (BPF keeps everyone else out of
 * the map, bpf/lib/protect.bpf.h). An entry names a layer the gate holds for as long as
 * the pins live, so the gate's thread may read an entry at any time, without a lock and
 * without asking layers.c (gate_policies_cached()): the id it finds is live. A map
 * element is read and written whole by the kernel.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <openssl/evp.h>

#include <umbrella/bpf-abi.h>

#include "gate-internal.h"
#include "gate-policies.h"
#include "layers.h"
#include "system-paths.h"

/* What the digest of an unknown signer's policy begins with, then the file owner's
 * uid: its key never equals a known signer's for the same text, nor another owner's
 * (a user who copies a program others run, with its policy and key id, and execs the
 * copy first must not make the layer their runs carry, and whose denials that user may
 * follow). */
static const char unknown_signer_prefix[] = "umbrella: unknown signer\n";

/* The key of @text signed by @s. Return: 0, or -ENOMEM (OpenSSL failed). */
static int policy_key(const char *text, const struct gate_policy_signer *s,
		      struct umb_policy_key *ret)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int len = 0;
	bool ok;

	*ret = (struct umb_policy_key){};
	memcpy(ret->key_id, s->key_id, sizeof(ret->key_id));
	ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
	     (!s->unknown || (EVP_DigestUpdate(md, unknown_signer_prefix,
					       sizeof(unknown_signer_prefix) - 1) == 1 &&
			      EVP_DigestUpdate(md, &s->uid, sizeof(s->uid)) == 1)) &&
	     EVP_DigestUpdate(md, text, strlen(text)) == 1 &&
	     EVP_DigestFinal_ex(md, ret->digest, &len) == 1 && len == sizeof(ret->digest);
	EVP_MD_CTX_free(md);
	return ok ? 0 : -ENOMEM;
}

static __u32 signer_origin(const struct gate_policy_signer *s)
{
	return s->unknown ? UMB_ORIGIN_UNKNOWN_SIGNER : UMB_ORIGIN_SIGNED_BINARY;
}

/* Whether @id is a live layer of a signed policy of @origin (a freed one's id never
 * comes back). */
static bool policy_layer_live(const struct gate_policies *p, __u32 id, __u32 origin)
{
	const struct umb_layer *l = layers_get(p->layers, id);

	return l && l->origin == origin;
}

void gate_policies_open(struct gate_policies *p, struct layers *layers, int map)
{
	struct umb_policy_key key, next;
	bool more;
	__u32 id;

	*p = (struct gate_policies){ .layers = layers, .map = map };
	/* Their references are still counted in their slots: held already. The next key
	 * is taken before the current one may go (deleting restarts a walk). */
	more = bpf_map_get_next_key(map, NULL, &key) == 0;
	while (more) {
		more = bpf_map_get_next_key(map, &key, &next) == 0;
		if (bpf_map_lookup_elem(map, &key, &id) < 0 ||
		    (!policy_layer_live(p, id, UMB_ORIGIN_SIGNED_BINARY) &&
		     !policy_layer_live(p, id, UMB_ORIGIN_UNKNOWN_SIGNER)))
			(void)bpf_map_delete_elem(map, &key);
		key = next;
	}
}

/* The uid a layer of @s is charged to: a known signer's to root (the system's), an
 * unknown one's to the file's owner (root's to the restricted root's account). */
static __u32 owner_uid(const struct gate_policy_signer *s)
{
	return !s->unknown ? 0 : s->uid ? s->uid : LAYER_UID_RESTRICTED_ROOT;
}

/*
 * Whether another unknown signer's layer may be made for @uid. Such a layer is held for
 * as long as the pins live (see the top), and any user can make one per policy text: so
 * few per owner and in all (UNKNOWN_SIGNER_LAYERS_PER_OWNER, _MAX), that a user's files
 * never use up the layers and rules of rforks, theirs or anyone's. Counted from
 * umb_policies, whose entries only this thread writes. Return: 0, or -EDQUOT with
 * *@ret_error.
 */
static int unknown_signer_room(const struct gate_policies *p, __u32 uid, char **ret_error)
{
	struct umb_policy_key key;
	unsigned int owner = 0, all = 0;
	bool more;
	__u32 id;

	more = bpf_map_get_next_key(p->map, NULL, &key) == 0;
	while (more) {
		const struct umb_layer *l;

		if (bpf_map_lookup_elem(p->map, &key, &id) == 0 &&
		    (l = layers_get(p->layers, id)) && l->origin == UMB_ORIGIN_UNKNOWN_SIGNER) {
			all++;
			owner += l->uid == uid;
		}
		more = bpf_map_get_next_key(p->map, &key, &key) == 0;
	}
	if (owner < UNKNOWN_SIGNER_LAYERS_PER_OWNER && all < UNKNOWN_SIGNER_LAYERS_MAX)
		return 0;
	if (asprintf(ret_error,
		     "%s policies of keys the key ring does not know are in force (%u%s): add "
		     "the signer's key to the ring",
		     owner >= UNKNOWN_SIGNER_LAYERS_PER_OWNER ? "this owner's" : "too many",
		     owner >= UNKNOWN_SIGNER_LAYERS_PER_OWNER ? owner : all,
		     owner >= UNKNOWN_SIGNER_LAYERS_PER_OWNER ? ", the most one owner may have" :
								"") < 0)
		*ret_error = NULL;
	return -EDQUOT;
}

/* A new layer of @text for the exec of @path by @pid, held by the gate. */
static int policy_layer_new(struct gate_policies *p, const char *text,
			    const struct gate_policy_signer *s, __u32 pid, const char *path,
			    __u32 *ret_layer, char **ret_error)
{
	struct umb_restrictions *r;
	struct system_paths paths;
	struct umb_layer_desc desc;
	int ret, desc_fd;
	__u32 id;

	r = umb_restrictions__new();
	if (!r)
		return -ENOMEM;
	ret = umb_restrictions__parse(r, text, ret_error);
	if (ret < 0)
		goto out;
	/* The vendor's paths mean the system's files, not those of umbrellad's private
	 * /tmp, nor of the exec'ing task's namespace (system-paths.c). */
	ret = system_paths_open(r, &paths, ret_error);
	if (ret < 0)
		goto out;
	/* A known signer's: charged to root, the system's, not the exec'ing user's; an
	 * unknown one's to the file's owner (see the top). */
	ret = layers_create_at(p->layers, paths.canonical, &paths.refs, pid, owner_uid(s),
			       signer_origin(s), 0, &id, ret_error);
	system_paths_close(&paths);
	if (ret < 0)
		goto out;
	(void)layers_hold(p->layers, id);
	/* layers_create() describes rfork layers: add what only we know. No task carries
	 * the layer before its verdict is written, so nobody reads a half description. */
	desc_fd = p->layers->maps.layer_desc;
	if (desc_fd >= 0 && bpf_map_lookup_elem(desc_fd, &id, &desc) == 0) {
		memcpy(desc.key_id, s->key_id, sizeof(desc.key_id));
		if (snprintf(desc.origin_path, sizeof(desc.origin_path), "%s", path) >=
		    (int)sizeof(desc.origin_path))
			desc.flags |= UMB_DESC_ORIGIN_TRUNCATED;
		(void)bpf_map_update_elem(desc_fd, &id, &desc, BPF_EXIST);
	}
	*ret_layer = id;
	ret = 0;
out:
	umb_restrictions__free(r);
	return ret;
}

int gate_policies_cached(const struct gate_policies *p, const char *text,
			 const struct gate_policy_signer *s, __u32 *ret_layer)
{
	struct umb_policy_key key;
	int r;

	r = policy_key(text, s, &key);
	if (r < 0)
		return r;
	if (bpf_map_lookup_elem(p->map, &key, ret_layer) < 0)
		return -errno;
	/* Live always, as entries are never deleted while the gate runs: checked all the
	 * same (layers_get() is an atomic read), so that a freed id is never carried. */
	return policy_layer_live(p, *ret_layer, signer_origin(s)) ? 0 : -ENOENT;
}

int gate_policies_layer(struct gate_policies *p, const char *text,
			const struct gate_policy_signer *s, __u32 pid, const char *path,
			__u32 *ret_layer, char **ret_error)
{
	struct umb_policy_key key;
	bool keyed;
	__u32 id;
	int r;

	keyed = policy_key(text, s, &key) == 0;
	if (keyed && bpf_map_lookup_elem(p->map, &key, &id) == 0 &&
	    policy_layer_live(p, id, signer_origin(s))) {
		*ret_layer = id;
		return 0;
	}
	if (s->unknown) {
		r = unknown_signer_room(p, owner_uid(s), ret_error);
		if (r < 0)
			return r;
	}
	r = policy_layer_new(p, text, s, pid, path, &id, ret_error);
	if (r < 0)
		return r;
	/* Not remembered (no memory): the next binary with this policy gets a layer of its
	 * own, which is as correct, only less frugal. */
	if (keyed)
		(void)bpf_map_update_elem(p->map, &key, &id, BPF_ANY);
	*ret_layer = id;
	return 0;
}

void gate_policies_abandon(struct gate_policies *p, const char *text,
			   const struct gate_policy_signer *s, __u32 id)
{
	struct umb_policy_key key;
	__u32 cached;

	if (policy_key(text, s, &key) == 0 && bpf_map_lookup_elem(p->map, &key, &cached) == 0 &&
	    cached == id)
		return;
	layers_put(p->layers, id);
}
