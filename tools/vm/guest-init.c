// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * PID 1 of an srdma test VM; tools/vm/run builds it (static) and boots it.
 *
 * It runs on the host's root file system, read-only over 9p. It puts a tmpfs
 * overlay on top so the guest can write anywhere and pivots into it
 * (pivot_root, so that the kernel's modprobe helper sees the same
 * /lib/modules), mounts what a Debian system has, the test kernel's modules
 * and the writable results directory, brings the network up, runs the
 * command with bash, saves its exit status and the kernel log, and powers
 * off.
 *
 * It is a C program and not a script because every exec costs about a
 * quarter of a second under TCG: this keeps a boot to the command within a
 * few seconds.
 *
 * Parameters come from the kernel command line:
 *   srdma_shared=DIR    writable directory shared by the VMs of a run
 *                       (9p tag "results"), mounted at the same path
 *   srdma_results=DIR   this VM's directory in it
 *   srdma_modules=DIR   the lib/modules tree to mount on /lib/modules
 *   srdma_repo=DIR      the checkout; the command runs there
 *   srdma_role=a|b  srdma_index=1|2  srdma_two=0|1
 *   srdma_kmemleak=1    scan for leaks after the command (kmemleak=on)
 *
 * Besides the command's output.log and exit-status, it leaves dmesg.txt,
 * tainted and (with kmemleak) kmemleak.txt for tools/vm/verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "guest-init: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	power_off();
}

static void do_mount(const char *src, const char *dst, const char *type,
		     unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data))
		die("mount %s on %s", type ? type : src, dst);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		fprintf(stderr, "guest-init: cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
}

static const char *param(const char *name)
{
	const char *v = getenv(name);

	if (!v) {
		errno = EINVAL;
		die("no %s= on the kernel command line", name);
	}
	return v;
}

/* Export every srdma_*=value of the kernel command line. */
static void read_cmdline(void)
{
	static char buf[4096];
	char *tok, *save;
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die("open /proc/cmdline");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		die("read /proc/cmdline");
	buf[n] = 0;
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save)) {
		char *eq = strchr(tok, '=');

		if (strncmp(tok, "srdma_", 6) || !eq)
			continue;
		*eq = 0;
		setenv(tok, eq + 1, 1);
	}
}

static void enter_overlay_root(void)
{
	do_mount("proc", "/proc", "proc", 0, NULL);
	read_cmdline();
	do_mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mkdir("/run/ov", 0755);
	mkdir("/run/ov/upper", 0755);
	mkdir("/run/ov/work", 0755);
	do_mount("overlay", "/run/ov/root", "overlay", 0,
		 "lowerdir=/,upperdir=/run/ov/upper,workdir=/run/ov/work");
	mkdir("/run/ov/root/oldroot", 0755);
	if (chdir("/run/ov/root"))
		die("chdir new root");
	if (syscall(SYS_pivot_root, ".", "oldroot"))
		die("pivot_root");
	if (chroot(".") || chdir("/"))
		die("chroot");
}

static void mount_system(void)
{
	char path[4096];

	do_mount("proc", "/proc", "proc", 0, NULL);
	do_mount("sysfs", "/sys", "sysfs", 0, NULL);
	do_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	do_mount("devpts", "/dev/pts", "devpts", 0, NULL);
	do_mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	/* what udev makes; bash's process substitution needs /dev/fd */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	do_mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	do_mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);

	/* From the old root: a tmpfs the overlay shows could hide the path. */
	snprintf(path, sizeof(path), "/oldroot%s", param("srdma_modules"));
	mkdir("/lib/modules", 0755);
	do_mount(path, "/lib/modules", NULL, MS_BIND, NULL);
	do_mount("results", param("srdma_shared"), "9p", 0,
		 "trans=virtio,version=9p2000.L,msize=262144");
}

static void link_up(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("SIOCGIFFLAGS %s", ifname);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		die("SIOCSIFFLAGS %s", ifname);
	close(fd);
}

/* Runs argv, returns its exit status (or -1). */
static int run(char *const argv[], const char *out)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/null", O_RDONLY);

		dup2(fd, 0);
		if (out) {
			fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		setsid();
		execvp(argv[0], argv);
		_exit(127);
	}
	/* PID 1 reaps orphans too: wait for our child in particular. */
	for (;;) {
		pid_t got = wait(&status);

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Two VMs: eth0 gets 198.18.0.N/24 and fd00:5264:6d61::N/64. */
static void setup_network(void)
{
	char v4[64], v6[64];
	char *const addr4[] = { "ip", "addr", "add", v4, "dev", "eth0", NULL };
	char *const addr6[] = { "ip", "addr", "add", v6, "dev", "eth0", "nodad",
				NULL };

	link_up("lo");
	if (strcmp(param("srdma_two"), "1"))
		return;
	snprintf(v4, sizeof(v4), "198.18.0.%s/24", param("srdma_index"));
	snprintf(v6, sizeof(v6), "fd00:5264:6d61::%s/64", param("srdma_index"));
	if (run(addr4, NULL) || run(addr6, NULL)) {
		errno = EIO;
		die("ip addr add on eth0");
	}
	link_up("eth0");
}

/* Copy a file of /proc or /sys (small, read once) to @dst. */
static void copy_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	int fd = open(src, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return;
	buf[n] = 0;
	write_file(dst, buf);
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * kmemleak (booted with kmemleak=on): an object is reported once two scans
 * found no reference to it and it was older than kmemleak's minimum age
 * (5 s) when the second began. The first scan's own time counts towards
 * that age.
 */
static void kmemleak_scan(const char *out)
{
	const char *ctl = "/sys/kernel/debug/kmemleak";
	double start = monotonic_seconds(), left;

	if (access(ctl, W_OK))
		return;
	write_file(ctl, "scan");
	left = start + 5.1 - monotonic_seconds();
	if (left > 0)
		usleep(left * 1e6);
	write_file(ctl, "scan");
	copy_file(ctl, out);
}

static void save_kernel_log(const char *path)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf = size > 0 ? malloc(size) : NULL;
	int n = buf ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size) : -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (n > 0 && fd >= 0 && write(fd, buf, n) < 0)
		fprintf(stderr, "guest-init: cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
	free(buf);
}

int main(void)
{
	char path[4096], out[4096], status[16], host[32];
	const char *results;
	char *const cmd[] = { "bash", path, NULL };
	int rc;

	enter_overlay_root();
	mount_system();
	results = param("srdma_results");

	snprintf(host, sizeof(host), "srdma-%s", param("srdma_role"));
	sethostname(host, strlen(host));
	write_file("/proc/sys/kernel/hung_task_timeout_secs", "60");
	write_file("/proc/sys/kernel/panic_on_oops", "1");
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	/*
	 * The C locale is built into glibc; C.UTF-8 is a dozen files that
	 * every grep, awk or sed opens over 9p as it starts: 50 ms a process
	 * under TCG, a tenth of a scenario's time.
	 */
	setenv("LANG", "C", 1);
	setenv("SRDMA_RESULTS", results, 1);
	setenv("SRDMA_SHARED", param("srdma_shared"), 1);
	setenv("SRDMA_ROLE", param("srdma_role"), 1);
	setenv("SRDMA_REPO", param("srdma_repo"), 1);
	setup_network();

	if (chdir(param("srdma_repo")))
		die("chdir %s", param("srdma_repo"));
	snprintf(path, sizeof(path), "%s/command.sh", results);
	snprintf(out, sizeof(out), "%s/output.log", results);
	/* tools/vm/run: the boot made it to the command */
	fprintf(stderr, "guest-init: running the command\n");
	rc = run(cmd, out);
	snprintf(status, sizeof(status), "%d\n", rc);
	if (getenv("srdma_kmemleak")) {
		snprintf(path, sizeof(path), "%s/kmemleak.txt", results);
		kmemleak_scan(path);
	}
	snprintf(path, sizeof(path), "%s/tainted", results);
	copy_file("/proc/sys/kernel/tainted", path);
	snprintf(path, sizeof(path), "%s/dmesg.txt", results);
	save_kernel_log(path);
	snprintf(path, sizeof(path), "%s/exit-status", results);
	write_file(path, status);
	sync();
	umount(param("srdma_shared"));
	power_off();
	return 0;
}
