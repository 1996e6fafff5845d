// SPDX-License-Identifier: GPL-2.0-only
/* Umbrella benchmark - the program the fork+exec phase runs: does nothing (static) */
int main(void)
{
	return 0;
}
