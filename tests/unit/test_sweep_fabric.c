// SPDX-License-Identifier: MIT
/*
 * Unit tests for sweep/fabric.c: the topology readers on the fixture files of
 * tests/fixtures/topology (Slurm topology.conf tree and block, the simple
 * HOST LEAF [RAIL] file, ibnetdiscover's output), Slurm hostlists, and every
 * malformed input refused with one line naming where, and a distinct code.
 */
#include "lp_test.h"

#include <errno.h>

#include "sweep/fabric.h"

static void fixture(const char *name, char *path, size_t len)
{
	const char *top = getenv("LP_ROOT");

	snprintf(path, len, "%s/tests/fixtures/topology/%s", top ? top : ".", name);
}

static int read_fixture(struct lp_fabric *f, const char *name, struct lp_fail *why)
{
	char path[4096];

	fixture(name, path, sizeof(path));
	return lp_fabric_read(f, path, lp_fresh(why));
}

static const char *leaf_of(const struct lp_fabric *f, const char *host, const char *dev)
{
	const struct lp_fabric_port *p = lp_fabric_find(f, host, dev);

	return p && p->leaf >= 0 ? f->leaf[p->leaf] : NULL;
}

static const char *rail_of(const struct lp_fabric *f, const char *host, const char *dev)
{
	const struct lp_fabric_port *p = lp_fabric_find(f, host, dev);

	return p && p->rail >= 0 ? f->rail[p->rail] : NULL;
}

static void test_slurm_tree(void **state)
{
	struct lp_fabric f;
	struct lp_fail why;

	(void)state;
	assert_int_equal(read_fixture(&f, "slurm-tree.conf", &why), 0);
	assert_int_equal(f.format, LP_FABRIC_SLURM);
	assert_int_equal(f.nport, 64);
	assert_int_equal(f.nleaf, 4); /* the switches hosts hang off; the spines after them */
	assert_int_equal(f.nleaf_all, 6);
	assert_string_equal(leaf_of(&f, "gpu001", NULL), "leaf1");
	assert_string_equal(leaf_of(&f, "gpu016.cluster.example", ""), "leaf1"); /* domain */
	assert_string_equal(leaf_of(&f, "gpu031", NULL), "leaf2");		 /* a list */
	assert_string_equal(leaf_of(&f, "gpu041", NULL), "leaf3"); /* lower-case keys */
	assert_string_equal(leaf_of(&f, "gpu064", NULL), "leaf4"); /* a "\" continuation */
	assert_null(lp_fabric_find(&f, "gpu065", NULL));
	assert_null(lp_fabric_find(&f, "gpu00", NULL));
	for (int l = 0; l < 4; l++) /* each leaf under a spine */
		assert_true(f.leaf_parent[l] >= 4 &&
			    !strncmp(f.leaf[f.leaf_parent[l]], "spine", 5));
	lp_fabric_free(&f);
}

static void test_slurm_block_and_simple(void **state)
{
	struct lp_fabric f;
	struct lp_fail why;

	(void)state;
	assert_int_equal(read_fixture(&f, "slurm-block.conf", &why), 0);
	assert_int_equal(f.nport, 24);
	assert_int_equal(f.nleaf, 3);
	assert_string_equal(leaf_of(&f, "n9", NULL), "block2");
	lp_fabric_free(&f);

	assert_int_equal(read_fixture(&f, "simple.txt", &why), 0);
	assert_int_equal(f.format, LP_FABRIC_SIMPLE);
	assert_int_equal(f.nport, 8);
	assert_int_equal(f.nleaf, 2);
	assert_string_equal(leaf_of(&f, "node4", NULL), "leafA"); /* node[3-4] */
	assert_null(rail_of(&f, "node4", NULL));		  /* "-" */
	assert_null(rail_of(&f, "node7", NULL));		  /* absent */
	assert_string_equal(rail_of(&f, "node6", NULL), "railX");
	assert_string_equal(leaf_of(&f, "node8", NULL), "leafB"); /* node8.cluster in the file */
	lp_fabric_free(&f);
}

/* A rail-optimised fabric: the leaf is per device (host mlx5_0 on rail0-leaf, mlx5_1 on
 * rail1-leaf), the device name is the rail; a CA known only from its switch's port line. */
static void test_ibnetdiscover(void **state)
{
	struct lp_fabric f;
	struct lp_fail why;

	(void)state;
	assert_int_equal(read_fixture(&f, "ibnetdiscover.txt", &why), 0);
	assert_int_equal(f.format, LP_FABRIC_IBNET);
	assert_int_equal(f.nport, 8);
	assert_int_equal(f.nleaf, 2); /* the spine has no host */
	assert_int_equal(f.nrail, 2);
	assert_string_equal(leaf_of(&f, "gpu03", "mlx5_0"), "rail0-leaf");
	assert_string_equal(leaf_of(&f, "gpu03", "mlx5_1"), "rail1-leaf");
	assert_string_equal(rail_of(&f, "gpu04", "mlx5_1"), "mlx5_1");
	assert_string_equal(leaf_of(&f, "gpu04", NULL), "rail0-leaf"); /* any device: the first */
	lp_fabric_free(&f);
}

struct names {
	char got[16][32];
	int n;
};

static int collect(void *arg, const char *name)
{
	struct names *s = arg;

	if (s->n >= 16)
		return -E2BIG;
	snprintf(s->got[s->n++], sizeof(s->got[0]), "%s", name);
	return 0;
}

static void test_hostlist(void **state)
{
	struct names s = { 0 };

	(void)state;
	assert_int_equal(lp_fabric_hostlist("tux[0-2,12],gpu-a[08-09]x", collect, &s), 0);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.got[0], "tux0");
	assert_string_equal(s.got[3], "tux12");
	assert_string_equal(s.got[4], "gpu-a08x"); /* width of the lower bound kept */
	memset(&s, 0, sizeof(s));
	assert_int_equal(lp_fabric_hostlist("n[1-2]-ib[0-1]", collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.got[3], "n2-ib1");
	assert_int_equal(lp_fabric_hostlist("n[1-20]", collect, &s), -E2BIG); /* cb's code */
	/* malformed */
	assert_int_equal(lp_fabric_hostlist("n[1-3", collect, &s), -EINVAL);
	assert_int_equal(lp_fabric_hostlist("n1-3]", collect, &s), -EINVAL);
	assert_int_equal(lp_fabric_hostlist("n[3-1]", collect, &s), -EINVAL);
	assert_int_equal(lp_fabric_hostlist("n[a-b]", collect, &s), -EINVAL);
	assert_int_equal(lp_fabric_hostlist("n[1-2000000]", collect, &s), -EINVAL);
}

/* Malformed input: -EINVAL and one line saying where and what; never a crash. */
static void test_malformed(void **state)
{
	static const struct {
		const char *file, *why;
	} bad[] = {
		{ "bad-slurm.conf", "line 2: Nodes= without SwitchName= or BlockName=" },
		{ "bad-hostlist.conf", "line 1: bad hostlist \"gpu[001-016\"" },
		{ "bad-simple.txt", "line 2: expected HOST LEAF [RAIL], got 4 field(s)" },
		{ "bad-ibnetdiscover.txt",
		  "line 2: a port line without the \"ID\" it is cabled to" },
	};
	struct lp_fabric f;
	struct lp_fail why;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_fixture(&f, bad[i].file, &why), -EINVAL);
		assert_string_equal(why.msg, bad[i].why);
		assert_null(strchr(why.msg, '\n'));
		lp_fabric_free(&f);
	}
	assert_int_equal(read_fixture(&f, "no-such-file", &why), -ENOENT);
	lp_fabric_free(&f);
	assert_int_equal(lp_fabric_parse(&f, "# only a comment\n\n", "text", lp_fresh(&why)),
			 -EINVAL);
	assert_string_equal(why.msg, "no host in the file");
	lp_fabric_free(&f);
	assert_int_equal(lp_fabric_parse(&f, "SwitchName=s1 Speed=4\n", "text", lp_fresh(&why)),
			 -EINVAL);
	assert_string_equal(why.msg, "line 1: unknown key Speed");
	lp_fabric_free(&f);
}

/* The Slurm topology.conf next to $SLURM_CONF is found; none there: NULL. */
static void test_slurm_path(void **state)
{
	char dir[] = "/tmp/lp-fabric-XXXXXX", conf[128], topo[128];
	FILE *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	snprintf(topo, sizeof(topo), "%s/topology.conf", dir);
	setenv("SLURM_CONF", conf, 1);
	assert_null(lp_fabric_slurm_path());
	t = fopen(topo, "w");
	assert_non_null(t);
	fputs("SwitchName=s Nodes=a[1-2]\n", t);
	fclose(t);
	assert_string_equal(lp_fabric_slurm_path(), topo);
	unlink(topo);
	rmdir(dir);
	unsetenv("SLURM_CONF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slurm_tree),    cmocka_unit_test(test_slurm_block_and_simple),
		cmocka_unit_test(test_ibnetdiscover), cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_malformed),     cmocka_unit_test(test_slurm_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
