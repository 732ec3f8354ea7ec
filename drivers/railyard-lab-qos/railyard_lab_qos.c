// SPDX-License-Identifier: GPL-2.0
/*
 * railyard_lab_qos: a lab stand-in that emulates a ConnectX NIC's DCB in
 * software on virtio-net interfaces.  It is not hardware and is for the
 * railyard QEMU lab only; never ship it in a production image.
 *
 * railyard's lab boots the node image in QEMU, where the rail NICs are
 * virtio-net, which has no DCB at all.  So that the agent's PFC, DSCP trust,
 * ECN and PFC storm code runs against a kernel that implements them, this
 * module gives selected virtio-net interfaces the interfaces NVIDIA's mlx5
 * driver offers.  Nothing here pauses, classifies or marks a packet: settings
 * are only kept and reported back, and pause counters move only when a pause
 * storm is simulated on purpose (pause_storm=).
 *
 * It attaches to a net device in init_net only when both hold:
 *  - its name matches one of the ifnames globs, now or after a rename
 *    (udev renames eth1 to enp17s0 after virtio_net registers it);
 *  - its parent device is bound to virtio_net.  A matching name on any other
 *    driver gets a warning and is left alone, so that loading this module by
 *    mistake on a real node never touches a production NIC.
 *
 * An attached interface gets:
 *  - IEEE DCB over rtnetlink (dcbnl): PFC, ETS, the APP table (kept by the
 *    kernel's dcbnl core, DSCP selector included) and DCBX mode host/IEEE;
 *  - ethtool: the pfc-prevention-tout tunable and, after virtio_net's own
 *    statistics, mlx5's per-priority pause counters;
 *  - sysfs as NVIDIA's out-of-tree driver lays it out: qos/trust,
 *    ecn/roce_{np,rp}/enable/<prio>, ecn/roce_np/{cnp_dscp,cnp_802p_prio};
 *  - railyard_lab_qos/{version,driver} in sysfs, by which railyard's agent
 *    and its reports tell this software stand-in from hardware.
 *
 * Parameters, read at load time:
 *  ifnames      comma-separated shell globs of interface names ("eth1,enp*").
 *               Empty (the default): attach to nothing.
 *  pause_storm  comma-separated MAC[@PPS][/tx]: the attached NIC with that
 *               MAC receives (with /tx: sends) PPS pause frames a second
 *               (default 20000) on every priority that has PFC enabled, as
 *               in a PFC pause storm.
 *  pfc_delay    initial PFC delay (cable length) reported; 7 as on mlx5.
 *
 * Everything is undone when an interface is unregistered and at unload.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/dcbnl.h>
#include <net/net_namespace.h>

#ifndef CONFIG_DCB
#error "railyard_lab_qos needs a kernel built with CONFIG_DCB"
#endif

#define LQ_VERSION		"1.0"
#define LQ_DRIVER		"railyard-lab-qos"

#define LQ_NUM_PRIO		IEEE_8021QAZ_MAX_TCS
#define LQ_DCBX_MODE		(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)
#define LQ_DEFAULT_STORM_PPS	20000

/* mlx5's bounds (MLX5E_PFC_PREVEN_TOUT_*), so the agent sees the same. */
#define LQ_PFC_PREVEN_TOUT_MIN	80
#define LQ_PFC_PREVEN_TOUT_MAX	8000
#define LQ_PFC_PREVEN_TOUT_AUTO	100

#define LQ_DSCP_MAX		63
#define LQ_CNP_DSCP_DEFAULT	48
#define LQ_CNP_PRIO_DEFAULT	6

static char *ifnames = "";
module_param(ifnames, charp, 0444);
MODULE_PARM_DESC(ifnames,
		 "Comma-separated shell globs of virtio-net interface names to attach to (default: none)");

static char *pause_storm = "";
module_param(pause_storm, charp, 0444);
MODULE_PARM_DESC(pause_storm,
		 "Simulated PFC pause storms: comma-separated MAC[@PPS][/tx]; PPS defaults to 20000, /tx makes the NIC the sender");

static ushort pfc_delay = 7;
module_param(pfc_delay, ushort, 0444);
MODULE_PARM_DESC(pfc_delay, "Initial PFC delay (cable length) reported (default 7, as mlx5)");

struct lq_storm {
	u8 mac[ETH_ALEN];
	u32 pps;
	bool tx;
};

/* The ethtool statistics of one priority, in the order mlx5 lists them. */
struct lq_prio_stats {
	u64 rx_pause;
	u64 rx_pause_duration;		/* us */
	u64 tx_pause;
	u64 tx_pause_duration;		/* us */
	u64 rx_pause_transition;
};

#define LQ_STATS_PER_PRIO	(sizeof(struct lq_prio_stats) / sizeof(u64))
#define LQ_NUM_STATS		(LQ_NUM_PRIO * LQ_STATS_PER_PRIO)

enum lq_trust {
	LQ_TRUST_PCP,
	LQ_TRUST_DSCP,
};

enum lq_ecn_proto {
	LQ_ECN_NP,
	LQ_ECN_RP,
	LQ_ECN_NR,
};

static const char * const lq_ecn_proto_names[LQ_ECN_NR] = {
	[LQ_ECN_NP] = "roce_np",
	[LQ_ECN_RP] = "roce_rp",
};

static const char * const lq_prio_names[LQ_NUM_PRIO] = {
	"0", "1", "2", "3", "4", "5", "6", "7",
};

struct lq_ecn_attr {
	struct kobj_attribute attr;
	unsigned long *enabled;		/* one bit per priority */
	unsigned int prio;
};

struct lq_dev {
	struct list_head node;		/* in lq_devs, under rtnl */
	struct rcu_head rcu;
	struct net_device *dev;
	const struct dcbnl_rtnl_ops *saved_dcbnl_ops;
	const struct ethtool_ops *saved_ethtool_ops;
	struct ethtool_ops ethtool_ops;	/* virtio_net's plus ours: per device */

	/* Under rtnl: every dcbnl and ethtool callback runs with it held. */
	u8 pfc_en;
	u8 pfc_mbc;
	u16 pfc_delay;
	struct ieee_ets ets;
	u16 pfc_preven_tout;
	u32 rx_storm_pps;
	u32 tx_storm_pps;
	ktime_t storm_start[LQ_NUM_PRIO];	/* PFC enabled on the prio since */
	struct lq_prio_stats frozen[LQ_NUM_PRIO];	/* up to storm_start */

	/*
	 * Sysfs values.  Their handlers must not take rtnl (detach removes the
	 * files with rtnl held and waits for running handlers), so each value
	 * is a single word read and written with READ_ONCE/WRITE_ONCE or
	 * atomic bitops.
	 */
	u8 trust;
	u8 cnp_dscp;
	u8 cnp_prio;
	unsigned long ecn_enabled[LQ_ECN_NR];

	struct device_attribute trust_attr;
	struct attribute *qos_attrs[2];
	struct attribute_group qos_group;
	bool qos_group_added;
	bool info_group_added;

	struct kobject *ecn_kobj;
	struct kobject *ecn_proto_kobj[LQ_ECN_NR];
	struct lq_ecn_attr ecn_attr[LQ_ECN_NR][LQ_NUM_PRIO];
	struct attribute *ecn_attrs[LQ_ECN_NR][LQ_NUM_PRIO + 1];
	struct attribute_group ecn_group[LQ_ECN_NR];
	bool ecn_group_added[LQ_ECN_NR];
	struct kobj_attribute cnp_dscp_attr;
	struct kobj_attribute cnp_prio_attr;
	struct attribute *np_attrs[3];
	struct attribute_group np_group;
	bool np_group_added;
};

static LIST_HEAD(lq_devs);

/* ifnames split at its commas: lq_globs_len bytes of NUL-separated globs. */
static char *lq_globs;
static size_t lq_globs_len;

static struct lq_storm *lq_storms;
static unsigned int lq_nr_storms;

static struct lq_dev *lq_find(const struct net_device *dev)
{
	struct lq_dev *lq;

	ASSERT_RTNL();
	list_for_each_entry(lq, &lq_devs, node)
		if (lq->dev == dev)
			return lq;
	return NULL;
}

/* Our ethtool callbacks are only reached through the copy inside lq_dev. */
static struct lq_dev *lq_from_ethtool(struct net_device *dev)
{
	return container_of(dev->ethtool_ops, struct lq_dev, ethtool_ops);
}

/* PFC pause storm counters */

/*
 * Counters are derived from the time PFC has been enabled rather than ticked
 * by a timer: nothing runs in the background, and a reading is exact for the
 * moment it is taken and never goes backwards.
 */
static void lq_prio_stats(const struct lq_dev *lq, unsigned int prio,
			  ktime_t now, struct lq_prio_stats *st)
{
	u64 ns;

	*st = lq->frozen[prio];
	if (!(lq->pfc_en & BIT(prio)))
		return;

	ns = ktime_to_ns(ktime_sub(now, lq->storm_start[prio]));
	if (lq->rx_storm_pps) {
		st->rx_pause += mul_u64_u32_div(ns, lq->rx_storm_pps,
						NSEC_PER_SEC);
		/* A storm pauses the link continuously. */
		st->rx_pause_duration += div_u64(ns, NSEC_PER_USEC);
	}
	if (lq->tx_storm_pps) {
		st->tx_pause += mul_u64_u32_div(ns, lq->tx_storm_pps,
						NSEC_PER_SEC);
		st->tx_pause_duration += div_u64(ns, NSEC_PER_USEC);
	}
}

static void lq_set_pfc_en(struct lq_dev *lq, u8 pfc_en)
{
	unsigned long changed = lq->pfc_en ^ pfc_en;
	ktime_t now = ktime_get();
	struct lq_prio_stats st;
	unsigned int prio;

	for_each_set_bit(prio, &changed, LQ_NUM_PRIO) {
		if (pfc_en & BIT(prio)) {
			lq->storm_start[prio] = now;
			continue;
		}
		lq_prio_stats(lq, prio, now, &st);
		/* The storm on this priority ends: the peer's XOFF lifts. */
		if (lq->rx_storm_pps)
			st.rx_pause_transition++;
		lq->frozen[prio] = st;
	}
	lq->pfc_en = pfc_en;
}

/* dcbnl: IEEE 802.1Qaz only, host-managed, as railyard configures mlx5 */

static int lq_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct lq_dev *lq = lq_find(dev);
	struct lq_prio_stats st;
	ktime_t now = ktime_get();
	unsigned int prio;

	if (!lq)
		return -ENODEV;

	pfc->pfc_cap = LQ_NUM_PRIO;
	pfc->pfc_en = lq->pfc_en;
	pfc->mbc = lq->pfc_mbc;
	pfc->delay = lq->pfc_delay;
	/* As mlx5: pause frames sent (requests) and received (indications). */
	for (prio = 0; prio < LQ_NUM_PRIO; prio++) {
		lq_prio_stats(lq, prio, now, &st);
		pfc->requests[prio] = st.tx_pause;
		pfc->indications[prio] = st.rx_pause;
	}
	return 0;
}

static int lq_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct lq_dev *lq = lq_find(dev);

	if (!lq)
		return -ENODEV;

	lq_set_pfc_en(lq, pfc->pfc_en);
	lq->pfc_mbc = pfc->mbc;
	lq->pfc_delay = pfc->delay;
	return 0;
}

static int lq_ets_validate(const struct ieee_ets *ets)
{
	bool have_ets = false;
	unsigned int bw = 0;
	int i;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= IEEE_8021QAZ_MAX_TCS)
			return -EINVAL;

		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			have_ets = true;
			bw += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_CB_SHAPER:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			return -EINVAL;
		}
	}
	if (have_ets && bw != 100)
		return -EINVAL;
	return 0;
}

static int lq_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct lq_dev *lq = lq_find(dev);

	if (!lq)
		return -ENODEV;

	*ets = lq->ets;
	return 0;
}

static int lq_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct lq_dev *lq = lq_find(dev);
	int err;

	if (!lq)
		return -ENODEV;

	err = lq_ets_validate(ets);
	if (err)
		return err;

	lq->ets = *ets;
	/* No DCBX agent runs here: the host is never willing. */
	lq->ets.willing = 0;
	lq->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	return 0;
}

static int lq_app_validate(const struct dcb_app *app)
{
	if (app->priority >= LQ_NUM_PRIO)
		return -EINVAL;

	switch (app->selector) {
	case IEEE_8021QAZ_APP_SEL_DSCP:
		return app->protocol > LQ_DSCP_MAX ? -EINVAL : 0;
	case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
	case IEEE_8021QAZ_APP_SEL_STREAM:
	case IEEE_8021QAZ_APP_SEL_DGRAM:
	case IEEE_8021QAZ_APP_SEL_ANY:
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The APP table is the kernel's: dcbnl keeps and reports it, and its entries
 * are left to the kernel at detach.  When the device is unregistered dcbnl
 * flushes them itself (its notifier runs before ours, while our dcbnl_ops
 * are still set).  After rmmod they stay in the kernel's list, unreadable
 * without dcbnl_ops, and reappear if this module attaches again.
 */
static int lq_ieee_setapp(struct net_device *dev, struct dcb_app *app)
{
	int err = lq_app_validate(app);

	return err ? err : dcb_ieee_setapp(dev, app);
}

static int lq_ieee_delapp(struct net_device *dev, struct dcb_app *app)
{
	int err = lq_app_validate(app);

	return err ? err : dcb_ieee_delapp(dev, app);
}

static u8 lq_getdcbx(struct net_device *dev)
{
	return LQ_DCBX_MODE;
}

/* dcbnl's convention: 0 accepted, 1 refused. */
static u8 lq_setdcbx(struct net_device *dev, u8 mode)
{
	return mode == LQ_DCBX_MODE ? 0 : 1;
}

static const struct dcbnl_rtnl_ops lq_dcbnl_ops = {
	.ieee_getets	= lq_ieee_getets,
	.ieee_setets	= lq_ieee_setets,
	.ieee_getpfc	= lq_ieee_getpfc,
	.ieee_setpfc	= lq_ieee_setpfc,
	.ieee_setapp	= lq_ieee_setapp,
	.ieee_delapp	= lq_ieee_delapp,
	.getdcbx	= lq_getdcbx,
	.setdcbx	= lq_setdcbx,
};

/* ethtool */

static int lq_get_tunable(struct net_device *dev,
			  const struct ethtool_tunable *tuna, void *data)
{
	struct lq_dev *lq = lq_from_ethtool(dev);

	if (tuna->id == ETHTOOL_PFC_PREVENTION_TOUT) {
		*(u16 *)data = lq->pfc_preven_tout;
		return 0;
	}
	if (lq->saved_ethtool_ops->get_tunable)
		return lq->saved_ethtool_ops->get_tunable(dev, tuna, data);
	return -EOPNOTSUPP;
}

static int lq_set_tunable(struct net_device *dev,
			  const struct ethtool_tunable *tuna, const void *data)
{
	struct lq_dev *lq = lq_from_ethtool(dev);
	u16 tout;

	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT) {
		if (lq->saved_ethtool_ops->set_tunable)
			return lq->saved_ethtool_ops->set_tunable(dev, tuna,
								  data);
		return -EOPNOTSUPP;
	}

	tout = *(const u16 *)data;
	if (tout == PFC_STORM_PREVENTION_AUTO)
		tout = LQ_PFC_PREVEN_TOUT_AUTO;
	else if (tout != PFC_STORM_PREVENTION_DISABLE &&
		 (tout < LQ_PFC_PREVEN_TOUT_MIN || tout > LQ_PFC_PREVEN_TOUT_MAX))
		return -EINVAL;

	lq->pfc_preven_tout = tout;
	return 0;
}

/* How many ETH_SS_STATS entries virtio_net itself reports. */
static int lq_saved_stats_count(struct lq_dev *lq, struct net_device *dev)
{
	const struct ethtool_ops *ops = lq->saved_ethtool_ops;
	int n;

	if (!ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats)
		return 0;
	n = ops->get_sset_count(dev, ETH_SS_STATS);
	return n > 0 ? n : 0;
}

static int lq_get_sset_count(struct net_device *dev, int sset)
{
	struct lq_dev *lq = lq_from_ethtool(dev);

	if (sset == ETH_SS_STATS)
		return lq_saved_stats_count(lq, dev) + LQ_NUM_STATS;
	if (lq->saved_ethtool_ops->get_sset_count)
		return lq->saved_ethtool_ops->get_sset_count(dev, sset);
	return -EOPNOTSUPP;
}

static void lq_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct lq_dev *lq = lq_from_ethtool(dev);
	unsigned int prio;
	int n;

	if (sset != ETH_SS_STATS) {
		if (lq->saved_ethtool_ops->get_strings)
			lq->saved_ethtool_ops->get_strings(dev, sset, data);
		return;
	}

	n = lq_saved_stats_count(lq, dev);
	if (n) {
		lq->saved_ethtool_ops->get_strings(dev, sset, data);
		data += n * ETH_GSTRING_LEN;
	}
	/* Same order as struct lq_prio_stats. */
	for (prio = 0; prio < LQ_NUM_PRIO; prio++) {
		ethtool_sprintf(&data, "rx_prio%u_pause", prio);
		ethtool_sprintf(&data, "rx_prio%u_pause_duration", prio);
		ethtool_sprintf(&data, "tx_prio%u_pause", prio);
		ethtool_sprintf(&data, "tx_prio%u_pause_duration", prio);
		ethtool_sprintf(&data, "rx_prio%u_pause_transition", prio);
	}
}

static void lq_get_ethtool_stats(struct net_device *dev,
				 struct ethtool_stats *stats, u64 *data)
{
	struct lq_dev *lq = lq_from_ethtool(dev);
	struct lq_prio_stats st;
	unsigned int prio;
	ktime_t now;
	int n;

	n = lq_saved_stats_count(lq, dev);
	if (n) {
		struct ethtool_stats saved = {
			.cmd = stats->cmd,
			.n_stats = n,
		};

		lq->saved_ethtool_ops->get_ethtool_stats(dev, &saved, data);
		data += n;
	}

	now = ktime_get();
	for (prio = 0; prio < LQ_NUM_PRIO; prio++) {
		lq_prio_stats(lq, prio, now, &st);
		*data++ = st.rx_pause;
		*data++ = st.rx_pause_duration;
		*data++ = st.tx_pause;
		*data++ = st.tx_pause_duration;
		*data++ = st.rx_pause_transition;
	}
}

/* sysfs */

static ssize_t lq_trust_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, trust_attr);

	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(lq->trust) == LQ_TRUST_DSCP ? "dscp" : "pcp");
}

static ssize_t lq_trust_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, trust_attr);

	if (sysfs_streq(buf, "pcp"))
		WRITE_ONCE(lq->trust, LQ_TRUST_PCP);
	else if (sysfs_streq(buf, "dscp"))
		WRITE_ONCE(lq->trust, LQ_TRUST_DSCP);
	else
		return -EINVAL;
	return count;
}

static ssize_t lq_ecn_enable_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct lq_ecn_attr *ea = container_of(attr, struct lq_ecn_attr, attr);

	return sysfs_emit(buf, "%d\n", test_bit(ea->prio, ea->enabled));
}

static ssize_t lq_ecn_enable_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct lq_ecn_attr *ea = container_of(attr, struct lq_ecn_attr, attr);
	u8 val;
	int err;

	err = kstrtou8(buf, 10, &val);
	if (err)
		return err;
	if (val > 1)
		return -EINVAL;
	assign_bit(ea->prio, ea->enabled, val);
	return count;
}

static ssize_t lq_cnp_dscp_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, cnp_dscp_attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(lq->cnp_dscp));
}

static ssize_t lq_cnp_dscp_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, cnp_dscp_attr);
	u8 val;
	int err;

	err = kstrtou8(buf, 10, &val);
	if (err)
		return err;
	if (val > LQ_DSCP_MAX)
		return -EINVAL;
	WRITE_ONCE(lq->cnp_dscp, val);
	return count;
}

static ssize_t lq_cnp_prio_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, cnp_prio_attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(lq->cnp_prio));
}

static ssize_t lq_cnp_prio_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	struct lq_dev *lq = container_of(attr, struct lq_dev, cnp_prio_attr);
	u8 val;
	int err;

	err = kstrtou8(buf, 10, &val);
	if (err)
		return err;
	if (val >= LQ_NUM_PRIO)
		return -EINVAL;
	WRITE_ONCE(lq->cnp_prio, val);
	return count;
}

static ssize_t version_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", LQ_VERSION);
}
static DEVICE_ATTR_RO(version);

static ssize_t driver_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", LQ_DRIVER);
}
static DEVICE_ATTR_RO(driver);

static struct attribute *lq_info_attrs[] = {
	&dev_attr_version.attr,
	&dev_attr_driver.attr,
	NULL,
};

static const struct attribute_group lq_info_group = {
	.name = "railyard_lab_qos",
	.attrs = lq_info_attrs,
};

/*
 * Removing a kobject's directory waits for handlers running in it; the
 * handlers take no lock, so this is safe with rtnl held.  kobject_del() is
 * called explicitly so that the files are gone before lq is freed, even
 * where the kobject's release is deferred (CONFIG_DEBUG_KOBJECT_RELEASE).
 */
static void lq_kobject_remove(struct kobject **kobj)
{
	if (!*kobj)
		return;
	kobject_del(*kobj);
	kobject_put(*kobj);
	*kobj = NULL;
}

static void lq_sysfs_del(struct lq_dev *lq)
{
	struct kobject *dkobj = &lq->dev->dev.kobj;
	int i;

	if (lq->np_group_added)
		sysfs_remove_group(lq->ecn_proto_kobj[LQ_ECN_NP], &lq->np_group);
	lq->np_group_added = false;
	for (i = 0; i < LQ_ECN_NR; i++) {
		if (lq->ecn_group_added[i])
			sysfs_remove_group(lq->ecn_proto_kobj[i],
					   &lq->ecn_group[i]);
		lq->ecn_group_added[i] = false;
		lq_kobject_remove(&lq->ecn_proto_kobj[i]);
	}
	lq_kobject_remove(&lq->ecn_kobj);
	if (lq->info_group_added)
		sysfs_remove_group(dkobj, &lq_info_group);
	lq->info_group_added = false;
	if (lq->qos_group_added)
		sysfs_remove_group(dkobj, &lq->qos_group);
	lq->qos_group_added = false;
}

static void lq_init_kobj_attr(struct kobj_attribute *ka, const char *name,
			      ssize_t (*show)(struct kobject *,
					      struct kobj_attribute *, char *),
			      ssize_t (*store)(struct kobject *,
					       struct kobj_attribute *,
					       const char *, size_t))
{
	sysfs_attr_init(&ka->attr);
	ka->attr.name = name;
	ka->attr.mode = 0644;
	ka->show = show;
	ka->store = store;
}

/* Attributes live in lq, so handlers find their device without a lookup. */
static int lq_sysfs_add(struct lq_dev *lq)
{
	struct kobject *dkobj = &lq->dev->dev.kobj;
	int err, i, prio;

	sysfs_attr_init(&lq->trust_attr.attr);
	lq->trust_attr.attr.name = "trust";
	lq->trust_attr.attr.mode = 0644;
	lq->trust_attr.show = lq_trust_show;
	lq->trust_attr.store = lq_trust_store;
	lq->qos_attrs[0] = &lq->trust_attr.attr;
	lq->qos_group.attrs = lq->qos_attrs;
	lq->qos_group.name = "qos";
	err = sysfs_create_group(dkobj, &lq->qos_group);
	if (err)
		return err;
	lq->qos_group_added = true;

	err = sysfs_create_group(dkobj, &lq_info_group);
	if (err)
		goto err;
	lq->info_group_added = true;

	/* NVIDIA's driver nests these in plain kobjects; so do we. */
	lq->ecn_kobj = kobject_create_and_add("ecn", dkobj);
	if (!lq->ecn_kobj) {
		err = -ENOMEM;
		goto err;
	}
	for (i = 0; i < LQ_ECN_NR; i++) {
		lq->ecn_proto_kobj[i] = kobject_create_and_add(lq_ecn_proto_names[i],
							       lq->ecn_kobj);
		if (!lq->ecn_proto_kobj[i]) {
			err = -ENOMEM;
			goto err;
		}
		for (prio = 0; prio < LQ_NUM_PRIO; prio++) {
			struct lq_ecn_attr *ea = &lq->ecn_attr[i][prio];

			lq_init_kobj_attr(&ea->attr, lq_prio_names[prio],
					  lq_ecn_enable_show,
					  lq_ecn_enable_store);
			ea->enabled = &lq->ecn_enabled[i];
			ea->prio = prio;
			lq->ecn_attrs[i][prio] = &ea->attr.attr;
		}
		lq->ecn_group[i].name = "enable";
		lq->ecn_group[i].attrs = lq->ecn_attrs[i];
		err = sysfs_create_group(lq->ecn_proto_kobj[i],
					 &lq->ecn_group[i]);
		if (err)
			goto err;
		lq->ecn_group_added[i] = true;
	}

	lq_init_kobj_attr(&lq->cnp_dscp_attr, "cnp_dscp",
			  lq_cnp_dscp_show, lq_cnp_dscp_store);
	lq_init_kobj_attr(&lq->cnp_prio_attr, "cnp_802p_prio",
			  lq_cnp_prio_show, lq_cnp_prio_store);
	lq->np_attrs[0] = &lq->cnp_dscp_attr.attr;
	lq->np_attrs[1] = &lq->cnp_prio_attr.attr;
	lq->np_group.attrs = lq->np_attrs;
	err = sysfs_create_group(lq->ecn_proto_kobj[LQ_ECN_NP], &lq->np_group);
	if (err)
		goto err;
	lq->np_group_added = true;
	return 0;

err:
	lq_sysfs_del(lq);
	return err;
}

/* Attach and detach, all under rtnl */

static bool lq_name_matches(const char *name)
{
	const char *glob;

	for (glob = lq_globs; glob && glob < lq_globs + lq_globs_len;
	     glob += strlen(glob) + 1)
		if (*glob && glob_match(glob, name))
			return true;
	return false;
}

static bool lq_is_virtio_net(const struct net_device *dev)
{
	const struct device *parent = dev->dev.parent;
	const struct device_driver *drv;

	if (!parent)
		return false;
	drv = READ_ONCE(parent->driver);
	return drv && drv->name && !strcmp(drv->name, "virtio_net");
}

static void lq_setup_storm(struct lq_dev *lq)
{
	const struct net_device *dev = lq->dev;
	const struct lq_storm *s;

	for (s = lq_storms; s < lq_storms + lq_nr_storms; s++) {
		if (!ether_addr_equal(s->mac, dev->perm_addr) &&
		    !ether_addr_equal(s->mac, dev->dev_addr))
			continue;
		if (s->tx)
			lq->tx_storm_pps = s->pps;
		else
			lq->rx_storm_pps = s->pps;
	}
}

static int lq_attach(struct net_device *dev)
{
	struct lq_dev *lq;
	ktime_t now;
	int err, i;

	if (!dev->ethtool_ops)
		return -EOPNOTSUPP;

	lq = kzalloc(sizeof(*lq), GFP_KERNEL);
	if (!lq)
		return -ENOMEM;

	lq->dev = dev;
	lq->pfc_delay = pfc_delay;
	/*
	 * One traffic class carrying every priority, as an unconfigured port
	 * has: ETS with all the bandwidth on TC 0, the other TCs ETS at 0% so
	 * that no strict class could ever starve it.
	 */
	lq->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		lq->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	lq->ets.tc_tx_bw[0] = 100;
	lq->trust = LQ_TRUST_PCP;
	lq->cnp_dscp = LQ_CNP_DSCP_DEFAULT;
	lq->cnp_prio = LQ_CNP_PRIO_DEFAULT;
	lq_setup_storm(lq);
	now = ktime_get();
	for (i = 0; i < LQ_NUM_PRIO; i++)
		lq->storm_start[i] = now;

	err = lq_sysfs_add(lq);
	if (err) {
		kfree(lq);
		return err;
	}

	lq->saved_dcbnl_ops = dev->dcbnl_ops;
	lq->saved_ethtool_ops = dev->ethtool_ops;
	lq->ethtool_ops = *dev->ethtool_ops;
	lq->ethtool_ops.get_tunable = lq_get_tunable;
	lq->ethtool_ops.set_tunable = lq_set_tunable;
	lq->ethtool_ops.get_sset_count = lq_get_sset_count;
	lq->ethtool_ops.get_strings = lq_get_strings;
	lq->ethtool_ops.get_ethtool_stats = lq_get_ethtool_stats;
	list_add(&lq->node, &lq_devs);
	WRITE_ONCE(dev->dcbnl_ops, &lq_dcbnl_ops);
	WRITE_ONCE(dev->ethtool_ops, &lq->ethtool_ops);

	pr_info("%s: attached: software DCB stand-in for the lab, not hardware\n",
		dev->name);
	if (lq->rx_storm_pps)
		pr_info("%s: simulating a received PFC pause storm, %u pps on each PFC priority\n",
			dev->name, lq->rx_storm_pps);
	if (lq->tx_storm_pps)
		pr_info("%s: simulating a sent PFC pause storm, %u pps on each PFC priority\n",
			dev->name, lq->tx_storm_pps);
	return 0;
}

static void lq_detach(struct lq_dev *lq)
{
	struct net_device *dev = lq->dev;

	WRITE_ONCE(dev->dcbnl_ops, lq->saved_dcbnl_ops);
	WRITE_ONCE(dev->ethtool_ops, lq->saved_ethtool_ops);
	list_del(&lq->node);
	lq_sysfs_del(lq);
	pr_info("%s: detached: software DCB stand-in removed\n", dev->name);
	/*
	 * A few ethtool paths (timestamping info) read dev->ethtool_ops
	 * without rtnl; give them a grace period before the copy goes.
	 */
	kfree_rcu(lq, rcu);
}

static void lq_maybe_attach(struct net_device *dev)
{
	int err;

	if (!net_eq(dev_net(dev), &init_net) || lq_find(dev) ||
	    !lq_name_matches(dev->name))
		return;

	if (!lq_is_virtio_net(dev)) {
		pr_warn("%s: matches ifnames but is not a virtio_net device; left alone\n",
			dev->name);
		return;
	}

	err = lq_attach(dev);
	if (err)
		pr_warn("%s: cannot attach: %d\n", dev->name, err);
}

static int lq_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct lq_dev *lq;

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		/* Renamed out of a match: stay attached, as hardware would. */
		lq_maybe_attach(dev);
		break;
	case NETDEV_UNREGISTER:
		/* Also sent when the device moves to another namespace. */
		lq = lq_find(dev);
		if (lq)
			lq_detach(lq);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block lq_netdev_nb = {
	.notifier_call = lq_netdev_event,
};

/* Module parameters and init */

static int __init lq_parse_ifnames(void)
{
	char *p;

	if (!ifnames || !*ifnames)
		return 0;

	lq_globs = kstrdup(ifnames, GFP_KERNEL);
	if (!lq_globs)
		return -ENOMEM;
	lq_globs_len = strlen(lq_globs);
	for (p = lq_globs; *p; p++)
		if (*p == ',')
			*p = '\0';
	return 0;
}

static int __init lq_parse_storm(char *entry, struct lq_storm *s)
{
	char *pps, *dir;

	dir = strchr(entry, '/');
	if (dir) {
		*dir++ = '\0';
		if (strcasecmp(dir, "tx"))
			return -EINVAL;
		s->tx = true;
	}

	s->pps = LQ_DEFAULT_STORM_PPS;
	pps = strchr(entry, '@');
	if (pps) {
		*pps++ = '\0';
		if (kstrtou32(pps, 10, &s->pps) || !s->pps)
			return -EINVAL;
	}

	if (strlen(entry) != 3 * ETH_ALEN - 1 || !mac_pton(entry, s->mac))
		return -EINVAL;
	return 0;
}

static int __init lq_parse_storms(void)
{
	unsigned int n = 1;
	char *buf, *p, *entry;
	int err = 0;

	if (!pause_storm || !*pause_storm)
		return 0;

	buf = kstrdup(pause_storm, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (p = buf; *p; p++)
		if (*p == ',')
			n++;
	lq_storms = kcalloc(n, sizeof(*lq_storms), GFP_KERNEL);
	if (!lq_storms) {
		err = -ENOMEM;
		goto out;
	}

	p = buf;
	while ((entry = strsep(&p, ",")) != NULL) {
		entry = strim(entry);
		if (!*entry)
			continue;
		err = lq_parse_storm(entry, &lq_storms[lq_nr_storms]);
		if (err) {
			pr_err("pause_storm=%s: expected comma-separated MAC[@PPS][/tx]\n",
			       pause_storm);
			kfree(lq_storms);
			lq_storms = NULL;
			lq_nr_storms = 0;
			goto out;
		}
		lq_nr_storms++;
	}
out:
	kfree(buf);
	return err;
}

static int __init lq_init(void)
{
	int err;

	err = lq_parse_ifnames();
	if (err)
		return err;
	err = lq_parse_storms();
	if (err)
		goto err_globs;

	if (!lq_globs_len)
		pr_info("ifnames is empty: attaching to no interface\n");

	/*
	 * Registering replays NETDEV_REGISTER for every existing device under
	 * the same rtnl hold, which is the walk over init_net at load, with no
	 * window for a device to register unseen in between.
	 */
	err = register_netdevice_notifier(&lq_netdev_nb);
	if (err)
		goto err_storms;
	return 0;

err_storms:
	kfree(lq_storms);
err_globs:
	kfree(lq_globs);
	return err;
}

static void __exit lq_exit(void)
{
	struct lq_dev *lq, *tmp;

	/* Unregistering replays NETDEV_UNREGISTER, which detaches them all. */
	unregister_netdevice_notifier(&lq_netdev_nb);

	rtnl_lock();
	list_for_each_entry_safe(lq, tmp, &lq_devs, node)
		lq_detach(lq);
	rtnl_unlock();

	kfree(lq_storms);
	kfree(lq_globs);
}

module_init(lq_init);
module_exit(lq_exit);

MODULE_DESCRIPTION("railyard lab stand-in: emulates DCB (PFC, ETS, APP, trust, ECN) in software on virtio-net; not hardware");
MODULE_LICENSE("GPL");
MODULE_VERSION(LQ_VERSION);
