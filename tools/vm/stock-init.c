// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * /init of the initramfs tools/vm/run gives a distribution's stock kernel
 * (--stock): such a kernel has 9p, overlayfs and virtio-net as modules,
 * which the test kernel has built in, and no udev loads them in the guest.
 * Loads the modules the initramfs holds (/modules/NN-NAME.ko, in name
 * order), mounts the 9p root as the test kernel would from root=/dev/root
 * rootfstype=9p, moves it onto / and runs the init= of the kernel command
 * line there (tools/vm/guest-init).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "stock-init: %s: %m\n", what);
	/* PID 1 exiting panics the kernel: the runner sees the VM end */
	exit(1);
}

/* the value of @key= on the kernel command line, or NULL */
static char *cmdline_param(const char *key)
{
	static char buf[4096];
	size_t klen = strlen(key);
	char *tok, *save;
	ssize_t n;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0)
		die("open /proc/cmdline");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		die("read /proc/cmdline");
	buf[n] = 0;
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save))
		if (!strncmp(tok, key, klen) && tok[klen] == '=')
			return tok + klen + 1;
	return NULL;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_modules(void)
{
	struct dirent **names;
	char path[512];
	int i, n, fd;

	n = scandir("/modules", &names, NULL, by_name);
	if (n < 0)
		die("scandir /modules");
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/modules/%s", names[i]->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			die(path);
		close(fd);
	}
}

int main(void)
{
	char *init;

	mkdir("/proc", 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc");
	init = cmdline_param("init");
	if (!init)
		die("no init= on the kernel command line");
	load_modules();
	umount("/proc");
	mkdir("/root", 0755);
	if (mount("/dev/root", "/root", "9p", MS_RDONLY,
		  "trans=virtio,version=9p2000.L,msize=262144,cache=loose"))
		die("mount the 9p root");
	/* switch_root: the initramfs stays underneath, unreachable */
	if (chdir("/root") || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || chdir("/"))
		die("switch to the 9p root");
	execl(init, init, (char *)NULL);
	die(init);
}
