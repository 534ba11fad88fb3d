// SPDX-License-Identifier: MIT
/*
 * Unit tests for the inventory (rdma/inventory.h, common/pciinv.h, gpu/inventory.h) on fixture
 * trees of real device layouts: the ConnectX-7 InfiniBand and ConnectX-6 Dx RoCE hosts of
 * tests/fixtures/check/ with the overlays of tests/fixtures/inventory/ (device attributes,
 * slots, VPD written in the PCI spec's format by lp_fixture.h), a Soft-RoCE guest, the DGX H100
 * topology; and the text of infiniband-diags' smpquery and lldpd's lldpctl in their documented
 * formats (the text files in tests/fixtures/inventory/). Every missing source says why; nothing crashes.
 */
#include "lp_test.h"

#include "common/pciinv.h"
#include "gpu/inventory.h"
#include "lp_fixture.h"
#include "rdma/inventory.h"
#include "rdma/rdma.h"

#define NIC_IB "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0"
#define NIC_RO "sys/devices/pci0000:00/0000:00:02.0/0000:3b:00.0"

struct fx {
	char dir[64];
};

static struct fx *fx_new(const char *a, const char *b, const char *text)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/lp-inv-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	if (a)
		lp_fx_expand(fx->dir, a);
	if (b)
		lp_fx_expand(fx->dir, b);
	if (text)
		lp_fx_expand_text(fx->dir, text);
	return fx;
}

static void fx_free(struct fx *fx)
{
	lp_fx_rmtree(fx->dir);
	free(fx);
}

/* A fixture text file as a string (free it). */
static char *fixture_text(const char *name)
{
	const char *top = getenv("LP_ROOT");
	char path[PATH_MAX], *buf = calloc(1, 8192);
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/inventory/%s", top ? top : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, 8191, f) > 0);
	fclose(f);
	return buf;
}

static void read_vpd(const char *dir, const char *rel, struct lp_vpd *v, int *rc)
{
	char path[PATH_MAX];
	uint8_t buf[2048];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	*rc = lp_vpd_parse(buf, n, v);
}

/* ---- VPD ------------------------------------------------------------------------- */

static void test_vpd_parse(void **state)
{
	struct fx *fx = fx_new(
		NULL, NULL,
		"vpd a/vpd Adapter X|PN=MCX75310AAS-NEAT|EC=A7|SN=MT2318X09876|V2=two|V0=zero\n"
		"vpd b/vpd Adapter X|PN=P1|SN=S1|!badsum\n"
		"vpd c/vpd Adapter X|PN=P1|SN=S1|!cut\n");
	struct lp_vpd v;
	int rc;

	(void)state;
	read_vpd(fx->dir, "a/vpd", &v, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(v.product, "Adapter X");
	assert_string_equal(v.pn, "MCX75310AAS-NEAT");
	assert_string_equal(v.ec, "A7");
	assert_string_equal(v.sn, "MT2318X09876");
	assert_string_equal(v.vendor, "V2=two; V0=zero");
	assert_string_equal(v.note, "");
	/* a wrong checksum and a cut blob: refused with the reason, never a wrong serial in silence */
	read_vpd(fx->dir, "b/vpd", &v, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(v.note, "checksum"));
	read_vpd(fx->dir, "c/vpd", &v, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(v.note, "runs past"));
	/* nothing but an End Tag; garbage; no bytes */
	assert_int_equal(lp_vpd_parse((const uint8_t *)"\x78", 1, &v), -ENODATA);
	assert_int_equal(lp_vpd_parse((const uint8_t *)"\x90\xff\xff", 3, &v), -EINVAL);
	assert_int_equal(lp_vpd_parse((const uint8_t *)"", 0, &v), -ENODATA);
	fx_free(fx);
}

/* ---- ports ----------------------------------------------------------------------- */

static void test_port_ib(void **state)
{
	struct fx *fx = fx_new("check/cx7-ib.txt", "inventory/cx7-ib.txt", NULL);
	struct lp_inv_opts o = { .root = fx->dir, .vpd = true };
	struct lp_inv_port p;

	(void)state;
	assert_int_equal(lp_inv_port_read(&o, "mlx5_0", 1, -1, &p), 0);
	assert_string_equal(p.link_layer, "InfiniBand");
	assert_string_equal(p.state, "ACTIVE");
	assert_string_equal(p.node_guid, "a088:c203:00b4:1a2e");
	assert_string_equal(p.port_guid, "a088:c203:00b4:1a2e");
	assert_int_equal(p.lid, 0x1a);
	assert_string_equal(p.hca, "MT4129");
	assert_string_equal(p.psid, "MT_0000000838");
	assert_string_equal(p.fw, "28.39.1002");
	assert_string_equal(p.netdev, "ibp24s0");
	assert_int_equal(p.width, 4);
	assert_string_equal(p.speed, "NDR");
	assert_string_equal(p.pci.bdf, "0000:18:00.0");
	assert_string_equal(p.pci.id, "15b3:1021");
	assert_string_equal(p.pci.slot, "OSFP1");
	assert_string_equal(p.pci.slot_source, "SMBIOS label");
	assert_true(p.pci.cur_gts == 32.0 && p.pci.max_width == 16 && p.pci.numa == 0);
	assert_string_equal(p.pci.vpd.pn, "MCX75310AAS-NEAT");
	assert_string_equal(p.pci.vpd.sn, "MT2318X09876");
	/* no live system: the switch is not asked, and says so */
	assert_non_null(strstr(p.peer.note, "unknown"));
	fx_free(fx);
}

static void test_port_roce(void **state)
{
	struct fx *fx = fx_new("check/roce-cx6dx.txt", "inventory/roce-cx6dx.txt", NULL);
	struct lp_inv_opts o = { .root = fx->dir, .vpd = true };
	struct lp_inv_port p;

	(void)state;
	assert_int_equal(lp_inv_port_read(&o, "mlx5_0", 1, -1, &p), 0);
	assert_string_equal(p.link_layer, "Ethernet");
	/* the first routable RoCE v2 GID, not the link-local one or a v1 entry */
	assert_string_equal(p.gid, "0000:0000:0000:0000:0000:ffff:c0a8:0a0b");
	assert_string_equal(p.port_guid, "");
	assert_string_equal(p.mac, "0c:42:a1:6b:1c:2a");
	assert_string_equal(p.pci.slot, "2");
	assert_string_equal(p.pci.slot_source, "pci slot");
	assert_int_equal(p.pci.numa, -1);
	assert_string_equal(p.pci.vpd.pn, "MCX623106AN-CDAT");
	assert_string_equal(p.pci.vpd.vendor, "V0=PCIeGen4 x16");
	assert_non_null(strstr(p.max_note, "ethtool"));
	/* a named GID index wins */
	assert_int_equal(lp_inv_port_read(&o, "mlx5_0", 1, 1, &p), 0);
	assert_string_equal(p.gid, "fe80:0000:0000:0000:0e42:a1ff:fe6b:1c2a");
	/* without the VPD read: said, not guessed */
	o.vpd = false;
	assert_int_equal(lp_inv_port_read(&o, "mlx5_0", 1, -1, &p), 0);
	assert_string_equal(p.pci.vpd.pn, "");
	assert_string_equal(p.pci.vpd.note, "VPD not read");
	fx_free(fx);
}

static void test_port_unknowns(void **state)
{
	struct fx *fx = fx_new("inventory/rxe.txt", NULL, NULL);
	struct fx *novpd = fx_new("check/cx7-ib.txt", NULL, NULL);
	struct lp_inv_opts o = { .root = fx->dir, .vpd = true };
	struct lp_inv_host *h = calloc(1, sizeof(*h));
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(h);
	/* Soft-RoCE: no PCI function, PSID, firmware: each unknown with its reason */
	assert_int_equal(lp_inv_port_read(&o, "rxe0", 1, -1, &h->ports[0]), 0);
	assert_string_equal(h->ports[0].gid, "0000:0000:0000:0000:0000:ffff:0a00:020f");
	assert_string_equal(h->ports[0].mac, "52:54:00:12:34:56");
	assert_string_equal(h->ports[0].pci.bdf, "device");
	assert_non_null(strstr(h->ports[0].pci.slot_source, "unknown"));
	assert_non_null(strstr(h->ports[0].pci.vpd.note, "no PCI function"));
	/* no such port, no such device */
	assert_int_equal(lp_inv_port_read(&o, "rxe0", 2, -1, &h->ports[1]), -ENOENT);
	assert_int_equal(lp_inv_port_read(&o, "mlx5_9", 1, -1, &h->ports[1]), -ENOENT);
	/* a device without a vpd file */
	o.root = novpd->dir;
	assert_int_equal(lp_inv_port_read(&o, "mlx5_0", 1, -1, &h->ports[1]), 0);
	assert_string_equal(h->ports[1].pci.vpd.note, "no VPD: the function has none");
	assert_string_equal(h->ports[1].psid, "");
	/* the host table prints every gap as unknown, and the JSON parses */
	o.root = fx->dir;
	assert_int_equal(lp_inv_host_read(&o, h), 0);
	assert_int_equal(h->nports, 1);
	f = open_memstream(&out, &len);
	lp_inv_host_print(h, f);
	fclose(f);
	assert_non_null(strstr(out, "PSID unknown"));
	assert_non_null(strstr(out, "VPD unknown (no PCI function"));
	free(out);
	f = open_memstream(&out, &len);
	{
		struct lp_json j;

		lp_json_init(&j, f, true);
		lp_json_obj_begin(&j, NULL);
		lp_inv_host_json(h, &j);
		lp_json_obj_end(&j);
		assert_int_equal(lp_json_finish(&j), 0);
	}
	fclose(f);
	assert_true(lp_test_json_valid(out));
	free(out);
	free(h);
	fx_free(novpd);
	fx_free(fx);
}

/* ---- GPUs ------------------------------------------------------------------------ */

static void test_gpus(void **state)
{
	struct fx *fx = fx_new("topo/dgx-h100.txt", NULL, NULL);
	struct fx *one = fx_new("check/cx7-ib.txt", "inventory/cx7-ib.txt", NULL);
	struct lp_inv_gpus g;

	(void)state;
	assert_int_equal(lp_gpu_inv_read(fx->dir, &g), 0);
	assert_int_equal(g.n, 8);
	assert_int_equal(g.more, 0);
	assert_string_equal(g.gpu[0].bdf, "0000:1b:00.0");
	assert_int_equal(g.gpu[4].numa, 1);
	assert_string_equal(g.gpu[0].serial, "");
	assert_non_null(strstr(g.note, "NVML")); /* why serial and VBIOS are unknown */
	assert_int_equal(lp_gpu_inv_read(one->dir, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.gpu[0].slot, "GPU0");
	assert_true(g.gpu[0].cur_gts == 32.0 && g.gpu[0].cur_width == 16);
	/* no GPU at all: none, no note needed */
	assert_int_equal(lp_gpu_inv_read("/nonexistent-root", &g), 0);
	assert_int_equal(g.n, 0);
	fx_free(one);
	fx_free(fx);
}

/* ---- the helpers' text ------------------------------------------------------------ */

static void test_smpquery_text(void **state)
{
	char *ni = fixture_text("smpquery-nodeinfo.txt"),
	     *nd = fixture_text("smpquery-nodedesc.txt");
	char *pi = fixture_text("smpquery-portinfo-hdr.txt"), v[128], w[64], s[64], e[128];

	(void)state;
	assert_int_equal(lp_ibdiag_field(ni, "NodeType", v, sizeof(v)), 0);
	assert_string_equal(v, "Switch");
	assert_int_equal(lp_ibdiag_field(ni, "Guid", v, sizeof(v)), 0);
	assert_string_equal(v, "0xfc6a1c0300e8f2a0");
	assert_int_equal(lp_ibdiag_field(ni, "LocalPort", v, sizeof(v)), 0);
	assert_string_equal(v, "17");
	assert_int_equal(lp_ibdiag_field(ni, "NoSuchField", v, sizeof(v)), -ENOENT);
	assert_int_equal(lp_ibdiag_field(nd, "Node Description", v, sizeof(v)), 0);
	assert_string_equal(v, "MF0;leaf07:MQM9790/U1");
	/* the port supports NDR 4X and runs HDR: what the gate calls trained down */
	assert_int_equal(lp_ibdiag_field(pi, "LinkWidthSupported", w, sizeof(w)), 0);
	assert_int_equal(lp_ibdiag_max_width(w), 4);
	lp_ibdiag_field(pi, "LinkSpeedSupported", s, sizeof(s));
	lp_ibdiag_field(pi, "LinkSpeedExtSupported", e, sizeof(e));
	assert_string_equal(lp_ibdiag_max_speed(s, e, NULL), "NDR");
	assert_string_equal(lp_ibdiag_max_speed(s, NULL, NULL), "QDR");
	assert_string_equal(lp_ibdiag_max_speed(s, e, "212.5 Gbps"), "XDR");
	assert_null(lp_ibdiag_max_speed("undefined (0)", "0", NULL));
	assert_int_equal(lp_ibdiag_max_width("1X or 12X"), 12);
	assert_int_equal(lp_ibdiag_max_width(""), 0);
	free(ni);
	free(nd);
	free(pi);
}

static void test_lldp_text(void **state)
{
	char *kv = fixture_text("lldpctl-keyvalue.txt");
	struct lp_inv_peer p = { 0 };

	(void)state;
	assert_int_equal(lp_lldp_parse(kv, "ens1f0np0", &p), 0);
	assert_string_equal(p.name, "tor-r12-sn4600");
	assert_string_equal(p.guid, "b8:59:9f:2a:10:00");
	assert_string_equal(p.port, "swp14");
	assert_string_equal(p.source, "lldpctl");
	memset(&p, 0, sizeof(p));
	assert_int_equal(lp_lldp_parse(kv, "eno1", &p), 0);
	assert_string_equal(p.name, "mgmt-sw01");
	assert_string_equal(p.port, "ge-0/0/3");
	assert_int_equal(lp_lldp_parse(kv, "ens1f1np1", &p), -ENOENT);
	assert_int_equal(lp_lldp_parse("", "eth0", &p), -ENOENT);
	free(kv);
}

/* ---- records ---------------------------------------------------------------------- */

/* Every string member of a record full: the longest encoding it can have. */
static void fill_max(const struct lp_record *rec, void *obj)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		uint8_t *p = (uint8_t *)obj + f->off;

		if (f->type == LP_REC_T_STR) {
			memset(p, 'x', f->size - 1);
			p[f->size - 1] = 0;
		} else if (f->type == LP_REC_T_NEST && !f->max) {
			fill_max(f->rec, p);
		} else if (f->type == LP_REC_T_NEST) {
			for (size_t k = 0; k < f->max; k++)
				fill_max(f->rec, p + k * f->size);
		}
	}
}

static void test_records(void **state)
{
	struct lp_rdma_devinfo *d = calloc(1, sizeof(*d)), *back = calloc(1, sizeof(*back));
	struct lp_inv_gpus *g = calloc(1, sizeof(*g));
	struct lp_wbuf w;

	(void)state;
	assert_non_null(d);
	assert_non_null(back);
	assert_non_null(g);
	/* the device with its inventory, every string full, round trip (the ACCEPT's body) */
	fill_max(&lp_rdma_devinfo_record, d);
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&lp_rdma_devinfo_record, d, &w), 0);
	assert_int_equal(lp_record_decode_body(&lp_rdma_devinfo_record, back, w.data, w.len), 0);
	assert_string_equal(back->inv.pci.vpd.sn, d->inv.pci.vpd.sn);
	assert_string_equal(back->inv.peer.name, d->inv.peer.name);
	/* with LP_INV_MAX_GPUS full GPUs it still fits one frame beside a node's own fields */
	fill_max(&lp_inv_gpus_record, g);
	g->n = LP_INV_MAX_GPUS;
	assert_int_equal(lp_record_encode(&lp_inv_gpus_record, g, &w), 0);
	assert_true(w.len + 600 <= LP_WIRE_MAX_BODY);
	free(d);
	free(back);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vpd_parse), cmocka_unit_test(test_port_ib),
		cmocka_unit_test(test_port_roce), cmocka_unit_test(test_port_unknowns),
		cmocka_unit_test(test_gpus),	  cmocka_unit_test(test_smpquery_text),
		cmocka_unit_test(test_lldp_text), cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
