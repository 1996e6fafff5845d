/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fuzz targets' signing key (tests/fuzz): an Ed25519 key made for the seed corpus
 * and nothing else. Its private half is public here on purpose: the signed seeds
 * (tests/fuzz/make-seeds) and fuzz-signed-elf's round trip sign with it, and the ring
 * fuzz-signed-elf verifies against holds only its public half. Never put it in a ring.
 */
#ifndef UMBRELLA_FUZZ_KEY_H
#define UMBRELLA_FUZZ_KEY_H

#define FUZZ_KEY_PRIVATE_PEM                                                 \
	"-----BEGIN PRIVATE KEY-----\n"                                      \
	"MC4CAQAwBQYDK2VwBCIEIKZTgDaZSPvDRGBMSRsYZB2Tt/rE/qXm0dpgj20osP+V\n" \
	"-----END PRIVATE KEY-----\n"

#define FUZZ_KEY_PUBLIC_PEM                                              \
	"-----BEGIN PUBLIC KEY-----\n"                                   \
	"MCowBQYDK2VwAyEAK/+gw06ywxbUYRdKNxfiyGaLtZbHVfvmEP3C0Hk9HQo=\n" \
	"-----END PUBLIC KEY-----\n"

#endif /* UMBRELLA_FUZZ_KEY_H */
