// SPDX-License-Identifier: GPL-2.0-only
/*
 * denial-flood NPROC SECONDS: NPROC processes call socket(AF_INET) in a loop for
 * SECONDS, each call denied under "net" and recorded (systemd-test-flood). Exits 1 if a
 * socket is ever created (the layer did not hold), 0 otherwise; prints the calls made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int flood(int seconds)
{
	time_t end = time(NULL) + seconds;
	unsigned long calls = 0;

	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, calls++) {
			int fd = socket(AF_INET, SOCK_DGRAM, 0);

			if (fd >= 0) {
				fprintf(stderr, "denial-flood: socket(AF_INET) was allowed\n");
				return 1;
			}
		}
	}
	printf("denial-flood: %lu denied calls\n", calls);
	return 0;
}

int main(int argc, char **argv)
{
	int procs, seconds, status, failed = 0;

	if (argc != 3 || (procs = atoi(argv[1])) < 1 || (seconds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: denial-flood NPROC SECONDS\n");
		return 2;
	}
	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("denial-flood: fork");
			return 2;
		}
		if (pid == 0)
			exit(flood(seconds)); /* exit(): its count is written out */
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	return failed;
}
