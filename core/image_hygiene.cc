#include "image_hygiene.h"

namespace railyard {

namespace {

HygieneRule generator(const std::string& name, const std::string& why, const std::string& unless = "") {
  return {"/etc/systemd/system-generators/" + name, HygieneRule::mask, why,
          "/usr/lib/systemd/system-generators/" + name, unless};
}

HygieneRule unit(const std::string& name, const std::string& why) {
  return {"/etc/systemd/system/" + name, HygieneRule::mask, why, "/usr/lib/systemd/system/" + name};
}

}  // namespace

const std::vector<HygieneRule>& hygiene_rules() {
  using A = HygieneRule::Action;
  static const std::vector<HygieneRule> rules{
      {"/etc/machine-id", A::empty_file, "systemd generates one per node at boot when it is empty"},
      {"/var/lib/dbus/machine-id", A::remove, "a copy of the build's machine id"},
      {"/etc/ssh/ssh_host_*", A::remove, "host keys are generated per node at first boot"},
      {"/etc/nvme/hostid", A::remove, "nvme-cli's install writes a random one every node would share"},
      {"/etc/nvme/hostnqn", A::remove, "likewise: NVMe-oF targets tell hosts apart by it"},
      {"/etc/hostname", A::remove, "the build host's name; nodes get theirs from the node overlay"},
      {"/etc/resolv.conf", A::remove, "the build host's resolvers"},
      {"/var/lib/systemd/random-seed", A::remove, "a shared seed would give every node the same entropy"},
      {"/var/lib/systemd/credential.secret", A::remove, "a secret generated on the build host"},
      {"/var/lib/apt/lists/*", A::remove, "package indexes: large, and they date the build"},
      {"/var/cache/apt/*.bin", A::remove, "apt's caches, rebuilt on demand"},
      {"/var/cache/apt/archives/*.deb", A::remove, "downloaded packages"},
      {"/var/cache/debconf/*-old", A::remove, "backups that differ per build"},
      {"/var/cache/ldconfig/aux-cache", A::remove, "holds inode numbers and times of the build host's files"},
      {"/var/lib/dpkg/*-old", A::remove, "backups that differ per build"},
      {"/var/log", A::remove_files_below, "logs of the build, with its timestamps"},
      {"/var/lib/dkms/mok.key", A::remove,
       "the private key DKMS made on the build host to sign the modules it built: every node would hold it"},
      {"/etc/munge/munge.key", A::remove,
       "the cluster's munge key (munge makes one when installed): whoever holds it can act as any user of the "
       "cluster; it is delivered per cluster, never in a shared image"},
      {"/root/.bash_history", A::remove, "commands run while building"},
      {"/tmp/*", A::remove, "leftovers of the build"},
      {"/var/tmp/*", A::remove, "leftovers of the build"},
      // Timers a stateless node never needs, which Debian enables on install: they wake the
      // node to refresh package lists, upgrade, scrub and trim a disk it does not have.
      {"/etc/systemd/system/timers.target.wants/apt-daily.timer", A::remove,
       "refreshes package lists on a node that never installs a package"},
      {"/etc/systemd/system/timers.target.wants/apt-daily-upgrade.timer", A::remove,
       "upgrades packages in a root that the next boot discards"},
      {"/etc/systemd/system/timers.target.wants/e2scrub_all.timer", A::remove,
       "scrubs ext4 volumes a stateless node does not have"},
      {"/etc/systemd/system/timers.target.wants/fstrim.timer", A::remove,
       "trims filesystems a stateless node does not have"},
      {"/etc/systemd/system/timers.target.wants/dpkg-db-backup.timer", A::remove,
       "backs up a package database that the next boot discards"},
      // The one e2fsprogs starts at every boot, beside the agent.
      {"/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service", A::remove,
       "removes ext4 scrub snapshots of volumes a stateless node does not have"},
      // Generators systemd runs at every boot, before any unit, for disks and volumes a node
      // whose root is unpacked into RAM does not boot from (a process each: seconds of the
      // boot's CPU under emulation). Masked, not removed: the package stays whole.
      generator("systemd-gpt-auto-generator",
                "mounts the partitions of the disk the root was booted from: this root is in RAM, from no disk"),
      generator("systemd-hibernate-resume-generator",
                "resumes from a hibernation image: a root unpacked afresh at every boot never resumes"),
      generator("systemd-system-update-generator",
                "boots into offline-update mode: the image is rebuilt, never updated in place"),
      generator("systemd-cryptsetup-generator", "unlocks the volumes /etc/crypttab lists: the image has none",
                "/etc/crypttab"),
      generator("systemd-integritysetup-generator", "opens the volumes /etc/integritytab lists: the image has none",
                "/etc/integritytab"),
      generator("systemd-veritysetup-generator", "opens the volumes /etc/veritytab lists: the image has none",
                "/etc/veritytab"),
      // Units that systemd starts at every boot for a root on a disk; started ahead of udev
      // (udev waits for the first), each is a process on the way to the agent.
      unit("systemd-remount-fs.service",
           "applies /etc/fstab's options to the root file system: this root is unpacked into RAM, from no disk"),
      unit("systemd-repart.service",
           "grows the partitions of the disk the root was booted from (and has loop and dm_mod loaded first, "
           "to find it has nothing to do): this root is in RAM, from no disk"),
  };
  return rules;
}

std::string to_string(HygieneRule::Action a) {
  switch (a) {
    case HygieneRule::empty_file: return "empty-file";
    case HygieneRule::remove: return "remove";
    case HygieneRule::remove_files_below: return "remove-files-below";
    case HygieneRule::mask: return "mask";
  }
  return "?";
}

}  // namespace railyard
