/*
 * events.c - per CPU family, the hardware events nearest to the message
 * classes of Caheny et al., "Reducing Cache Coherence Traffic with a
 * NUMA-Aware Runtime Approach", section 2 (DTC, DWB, HREQ, SNP, HRSP, NDR),
 * each tagged exact / merged / flits / proxy with its unit.  The paper
 * measured at the bullion S BCS; here the nearest place is the socket
 * link (QPI/UPI, AMD data fabric), read per socket, Tx (leaving the socket)
 * and Rx (arriving).  Note the paper's "incoming" is traffic arriving at the
 * BCS from its sockets, i.e. the sockets' Tx.
 *
 * Events are written as the terms of the PMU's sysfs format ("event=..,
 * umask=..") and encoded through format/<field> at run time (sysfs.c).  Sources:
 * - Skylake-SP/Cascade Lake UPI: design/counters.md (raw configs checked in
 *   tests/test_counters.c against a recorded sysfs tree), Linux perf
 *   skylakex/cascadelakex JSON, libpfm4 intel_skx_unc_upi_events.h.
 * - Ice Lake-SP UPI: Linux perf icelakex/uncore-interconnect.json gives the
 *   same event codes and umasks as Skylake (TxL_BASIC_HDR_MATCH 0x04, RxL
 *   0x05; REQ 0x08, SNP 0x09, RSP_NODATA 0x0a, RSP_DATA 0x0c, WB 0x0d;
 *   TxL/RxL_FLITS.ALL_DATA 0x02/0x03 umask 0x0f).  Debian's libpfm4 4.13
 *   has no ICX uncore names, so PAPI cannot program them (pfm NULL).
 *   The core proxies use Skylake's MEM_LOAD_L3_MISS_RETIRED umasks, assumed
 *   unchanged on Ice Lake: UNCERTAIN, not checked on a machine.
 * - Sapphire Rapids / Emerald Rapids UPI: Linux perf
 *   sapphirerapids/uncore-interconnect.json has the data flits (TxL 0x02, RxL
 *   0x03, umask 0x0f) but, of the header matches, only NCB and NCS: no REQ,
 *   SNP, RSP or WB event is documented, so those classes are unavailable
 *   there.  The UPI PMU's umask is config:8-15,32-55 as on Ice Lake
 *   (uncore_snbep.c); EMR uses SPR's uncore code.  Core proxies: the same
 *   MEM_LOAD_L3_MISS_RETIRED umasks (sapphirerapids/cache.json).
 * - Haswell-EP/Broadwell-EP QPI: design/counters.md; ExtSel is bit 21,
 *   reached through the format "event=config:0-7,21" as event=0x1NN.  Rx
 *   codes (G0 0x01, G1 0x02, G2 0x03) from the Linux haswellx JSON.  The
 *   core proxies' umasks (MEM_LOAD_UOPS_L3_MISS_RETIRED: LOCAL_DRAM 0x01,
 *   REMOTE_DRAM 0x04, REMOTE_HITM 0x10, REMOTE_FWD 0x20) are from Intel's
 *   Haswell-EP event list: UNCERTAIN, not checked on a machine.
 * - AMD Zen 5: Linux perf amdzen5/data-fabric.json,
 *   remote_socket_{inbound,outbound}_data_beats_cfi_N (inbound beats are 32
 *   bytes, outbound 64).  Zen 4 and 5 core: ls_any_fills_from_sys (0x44)
 *   dram_io_near 0x08, far_cache 0x10, dram_io_far 0x40 (Linux amdzen4 JSON).
 *   Zen 3: the same event and umasks named mem_io_local, ext_cache_remote,
 *   mem_io_remote (amdzen3/memory.json).  Zen 2: demand fills only,
 *   ls_refills_from_sys (0x43) ls_mabresp_lcl_dram 0x08, _rmt_cache 0x10,
 *   _rmt_dram 0x40 (amdzen2/memory.json).  Which family/model is which Zen
 *   follows perf's pmu-events/arch/x86/mapfile.csv.  No remote-socket data
 *   fabric event is confirmed for Zen 2/3/4: those report the link classes
 *   unavailable.
 */
#include <stdio.h>
#include <string.h>

#include "counters/counters.h"

#define B(c) (1u << LOCUS_COUNTER_##c)
#define EXACT(u, n) { LOCUS_COUNTER_EXACT, 0, u, n }
#define MERGED(m, u, n) { LOCUS_COUNTER_MERGED, m, u, n }
#define FLITS(u, n) { LOCUS_COUNTER_FLITS, 0, u, n }
#define PROXY(u, n) { LOCUS_COUNTER_PROXY, 0, u, n }
#define NONE(n) { LOCUS_COUNTER_UNAVAILABLE, 0, "", n }
/* A CPU with no event for the paper's message classes, and why. */
#define NO_MESSAGE_CLASSES(why)                                                      \
    [LOCUS_COUNTER_DTC] = NONE(why), [LOCUS_COUNTER_DWB] = NONE(why),                \
    [LOCUS_COUNTER_HREQ] = NONE(why), [LOCUS_COUNTER_SNP] = NONE(why),               \
    [LOCUS_COUNTER_HRSP] = NONE(why), [LOCUS_COUNTER_NDR] = NONE(why)

#define UPI "uncore_upi_"
#define QPI "uncore_qpi_"
#define UPI_FLIT_BYTES (64.0 / 9.0) /* 9 data slots carry one 64-byte line */

/* ---- Skylake-SP / Cascade Lake, and Ice Lake-SP: UPI --------------------- */

#define UPI_HDR(PFM, cls, dir, code, tx, umask, what)                                \
    { cls, dir, UPI, "UNC_UPI_" tx "L_BASIC_HDR_MATCH." what,                       \
      "event=" code ",umask=" umask,                                                 \
      PFM ? "skx_unc_upi%d::UNC_UPI_" tx "L_BASIC_HDR_MATCH:" what : NULL, 1.0 }

#define UPI_EVENTS(PFM)                                                              \
    UPI_HDR(PFM, B(HREQ), LC_TX, "0x04", "Tx", "0x08", "REQ"),                     \
    UPI_HDR(PFM, B(HREQ), LC_RX, "0x05", "Rx", "0x08", "REQ"),                     \
    UPI_HDR(PFM, B(SNP), LC_TX, "0x04", "Tx", "0x09", "SNP"),                      \
    UPI_HDR(PFM, B(SNP), LC_RX, "0x05", "Rx", "0x09", "SNP"),                      \
    UPI_HDR(PFM, B(HRSP) | B(NDR), LC_TX, "0x04", "Tx", "0x0a", "RSP_NODATA"),     \
    UPI_HDR(PFM, B(HRSP) | B(NDR), LC_RX, "0x05", "Rx", "0x0a", "RSP_NODATA"),     \
    UPI_HDR(PFM, B(DTC), LC_TX, "0x04", "Tx", "0x0c", "RSP_DATA"),                 \
    UPI_HDR(PFM, B(DTC), LC_RX, "0x05", "Rx", "0x0c", "RSP_DATA"),                 \
    UPI_HDR(PFM, B(DWB), LC_TX, "0x04", "Tx", "0x0d", "WB"),                       \
    UPI_HDR(PFM, B(DWB), LC_RX, "0x05", "Rx", "0x0d", "WB"),                       \
    { B(LINK_BYTES), LC_TX, UPI, "UNC_UPI_TxL_FLITS.ALL_DATA", "event=0x02,umask=0x0f", \
      PFM ? "skx_unc_upi%d::UNC_UPI_TXL_FLITS:ALL_DATA" : NULL, UPI_FLIT_BYTES },     \
    { B(LINK_BYTES), LC_RX, UPI, "UNC_UPI_RxL_FLITS.ALL_DATA", "event=0x03,umask=0x0f", \
      PFM ? "skx_unc_upi%d::UNC_UPI_RXL_FLITS:ALL_DATA" : NULL, UPI_FLIT_BYTES },     \
    { B(LOCAL_DRAM), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM",              \
      "event=0xd3,umask=0x01", NULL, 1.0 },                                          \
    { B(REMOTE_DRAM), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM",            \
      "event=0xd3,umask=0x02", NULL, 1.0 },                                          \
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM",           \
      "event=0xd3,umask=0x04", NULL, 1.0 },                                          \
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD",            \
      "event=0xd3,umask=0x08", NULL, 1.0 }

static const struct lc_ctr_event skx_events[] = { UPI_EVENTS(1) };

/* ICX: same codes (see the top); libpfm4 4.13 cannot name them. */
static const struct lc_ctr_event icx_events[] = { UPI_EVENTS(0) };

#define UPI_CLASSES                                                                  \
    [LOCUS_COUNTER_DTC] = EXACT("messages", "UPI RSP_DATA headers: data responses to a cache"), \
    [LOCUS_COUNTER_DWB] = EXACT("messages", "UPI WB headers: write-backs to a home agent"), \
    [LOCUS_COUNTER_HREQ] = EXACT("messages", "UPI REQ headers"),                       \
    [LOCUS_COUNTER_SNP] = EXACT("messages", "UPI SNP headers"),                        \
    [LOCUS_COUNTER_HRSP] = MERGED(B(HRSP) | B(NDR), "messages",                        \
        "UPI RSP_NODATA counts snoop responses (HRSP) and completions (NDR) together"), \
    [LOCUS_COUNTER_NDR] = MERGED(B(HRSP) | B(NDR), "messages",                         \
        "UPI RSP_NODATA counts snoop responses (HRSP) and completions (NDR) together"), \
    [LOCUS_COUNTER_LINK_BYTES] = FLITS("bytes",                                        \
        "UPI data flits x 64/9 bytes, every message class including non-coherent"),    \
    [LOCUS_COUNTER_LOCAL_DRAM] = PROXY("loads", "retired loads served by local DRAM, this process"), \
    [LOCUS_COUNTER_REMOTE_DRAM] = PROXY("loads", "retired loads served by remote DRAM, this process"), \
    [LOCUS_COUNTER_REMOTE_CACHE] = PROXY("loads",                                      \
        "retired loads served by a remote cache (HITM + FWD), this process")

static const struct lc_ctr_table skx_table = {
    "skx", "Skylake-SP/Cascade Lake (UPI)", skx_events, sizeof skx_events / sizeof skx_events[0],
    { UPI_CLASSES },
};

static const struct lc_ctr_table icx_table = {
    "icx", "Ice Lake-SP (UPI)", icx_events, sizeof icx_events / sizeof icx_events[0],
    { UPI_CLASSES },
};

/* ---- Sapphire Rapids / Emerald Rapids: UPI data flits and proxies -------- */

static const struct lc_ctr_event spr_events[] = {
    { B(LINK_BYTES), LC_TX, UPI, "UNC_UPI_TxL_FLITS.ALL_DATA", "event=0x02,umask=0x0f", NULL, 1.0 },
    { B(LINK_BYTES), LC_RX, UPI, "UNC_UPI_RxL_FLITS.ALL_DATA", "event=0x03,umask=0x0f", NULL, 1.0 },
    { B(LOCAL_DRAM), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", "event=0xd3,umask=0x01",
      NULL, 1.0 },
    { B(REMOTE_DRAM), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", "event=0xd3,umask=0x02",
      NULL, 1.0 },
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", "event=0xd3,umask=0x04",
      NULL, 1.0 },
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", "event=0xd3,umask=0x08",
      NULL, 1.0 },
};

#define SPR_NO_HDR "no UPI header-match event for this class is documented for Sapphire/Emerald " \
                   "Rapids (only NCB and NCS)"
static const struct lc_ctr_table spr_table = {
    "spr", "Sapphire/Emerald Rapids (UPI flits)", spr_events,
    sizeof spr_events / sizeof spr_events[0],
    {
        NO_MESSAGE_CLASSES(SPR_NO_HDR),
        /* the flit's payload per data flit is not documented for UPI 2.0:
         * counted in flits, not converted to bytes */
        [LOCUS_COUNTER_LINK_BYTES] = FLITS("flits", "UPI data flits, every message class"),
        [LOCUS_COUNTER_LOCAL_DRAM] = PROXY("loads", "retired loads served by local DRAM, this process"),
        [LOCUS_COUNTER_REMOTE_DRAM] = PROXY("loads", "retired loads served by remote DRAM, this process"),
        [LOCUS_COUNTER_REMOTE_CACHE] = PROXY("loads",
            "retired loads served by a remote cache (HITM + FWD), this process"),
    },
};

/* ---- Haswell-EP / Broadwell-EP: QPI flits --------------------------------- */

#define QPI_EV(cls, dir, name, terms, pfm, scale) { cls, dir, QPI, name, terms, pfm, scale }

static const struct lc_ctr_event hswep_events[] = {
    QPI_EV(B(HREQ), LC_TX, "UNC_Q_TxL_FLITS_G1.HOM_REQ", "event=0x100,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G1:HOM_REQ", 1.0),
    QPI_EV(B(HREQ), LC_RX, "UNC_Q_RxL_FLITS_G1.HOM_REQ", "event=0x102,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G1:HOM_REQ", 1.0),
    QPI_EV(B(SNP), LC_TX, "UNC_Q_TxL_FLITS_G1.SNP", "event=0x100,umask=0x01",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G1:SNP", 1.0),
    QPI_EV(B(SNP), LC_RX, "UNC_Q_RxL_FLITS_G1.SNP", "event=0x102,umask=0x01",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G1:SNP", 1.0),
    QPI_EV(B(HRSP), LC_TX, "UNC_Q_TxL_FLITS_G1.HOM_NONREQ", "event=0x100,umask=0x04",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G1:HOM_NONREQ", 1.0),
    QPI_EV(B(HRSP), LC_RX, "UNC_Q_RxL_FLITS_G1.HOM_NONREQ", "event=0x102,umask=0x04",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G1:HOM_NONREQ", 1.0),
    QPI_EV(B(NDR), LC_TX, "UNC_Q_TxL_FLITS_G2.NDR_AD", "event=0x101,umask=0x01",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G2:NDR_AD", 1.0),
    QPI_EV(B(NDR), LC_TX, "UNC_Q_TxL_FLITS_G2.NDR_AK", "event=0x101,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G2:NDR_AK", 1.0),
    QPI_EV(B(NDR), LC_RX, "UNC_Q_RxL_FLITS_G2.NDR_AD", "event=0x103,umask=0x01",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G2:NDR_AD", 1.0),
    QPI_EV(B(NDR), LC_RX, "UNC_Q_RxL_FLITS_G2.NDR_AK", "event=0x103,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G2:NDR_AK", 1.0),
    QPI_EV(B(DTC) | B(DWB), LC_TX, "UNC_Q_TxL_FLITS_G1.DRS_DATA", "event=0x100,umask=0x08",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G1:DRS_DATA", 8.0),
    QPI_EV(B(DTC) | B(DWB), LC_RX, "UNC_Q_RxL_FLITS_G1.DRS_DATA", "event=0x102,umask=0x08",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G1:DRS_DATA", 8.0),
    QPI_EV(B(LINK_BYTES), LC_TX, "UNC_Q_TxL_FLITS_G0.DATA", "event=0x00,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_TXL_FLITS_G0:DATA", 8.0),
    QPI_EV(B(LINK_BYTES), LC_RX, "UNC_Q_RxL_FLITS_G0.DATA", "event=0x01,umask=0x02",
           "hswep_unc_qpi%d::UNC_Q_RXL_FLITS_G0:DATA", 8.0),
    { B(LOCAL_DRAM), LC_RX, "cpu", "MEM_LOAD_UOPS_L3_MISS_RETIRED.LOCAL_DRAM",
      "event=0xd3,umask=0x01", NULL, 1.0 },
    { B(REMOTE_DRAM), LC_RX, "cpu", "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_DRAM",
      "event=0xd3,umask=0x04", NULL, 1.0 },
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_HITM",
      "event=0xd3,umask=0x10", NULL, 1.0 },
    { B(REMOTE_CACHE), LC_RX, "cpu", "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_FWD",
      "event=0xd3,umask=0x20", NULL, 1.0 },
};

static const struct lc_ctr_table hswep_table = {
    "hswep", "Haswell-EP/Broadwell-EP (QPI)", hswep_events,
    sizeof hswep_events / sizeof hswep_events[0],
    {
        [LOCUS_COUNTER_DTC] = MERGED(B(DTC) | B(DWB), "bytes",
            "QPI DRS data flits x 8 bytes: data responses and write-backs share the DRS channel"),
        [LOCUS_COUNTER_DWB] = MERGED(B(DTC) | B(DWB), "bytes",
            "QPI DRS data flits x 8 bytes: data responses and write-backs share the DRS channel"),
        [LOCUS_COUNTER_HREQ] = FLITS("flits", "QPI HOM request flits (one per request header)"),
        [LOCUS_COUNTER_SNP] = FLITS("flits", "QPI SNP flits (one per snoop)"),
        [LOCUS_COUNTER_HRSP] = FLITS("flits",
            "QPI HOM non-request flits: snoop responses, the nearest to HRSP"),
        [LOCUS_COUNTER_NDR] = FLITS("flits", "QPI NDR flits (AD + AK rings)"),
        [LOCUS_COUNTER_LINK_BYTES] = FLITS("bytes", "QPI data flits x 8 bytes (DRS and NCB)"),
        [LOCUS_COUNTER_LOCAL_DRAM] = PROXY("loads", "retired loads served by local DRAM, this process"),
        [LOCUS_COUNTER_REMOTE_DRAM] = PROXY("loads", "retired loads served by remote DRAM, this process"),
        [LOCUS_COUNTER_REMOTE_CACHE] = PROXY("loads",
            "retired loads served by a remote cache (HITM + FWD), this process"),
    },
};

/* ---- AMD Zen 5: data fabric beats; Zen 2, 3, 4: core proxies only -------- */

#define DF_IN(n, code)                                                               \
    { B(LINK_BYTES), LC_RX, "amd_df", "remote_socket_inbound_data_beats_cfi_" #n,    \
      "event=" code ",umask=0xbfe", NULL, 32.0 }
#define DF_OUT(n, code)                                                              \
    { B(LINK_BYTES), LC_TX, "amd_df", "remote_socket_outbound_data_beats_cfi_" #n,   \
      "event=" code ",umask=0xbff", NULL, 64.0 }
/* The three fill sources, as each generation names them; one event code. */
#define ZEN_CORE(code, ev, local, remote, far_cache)                                 \
    { B(LOCAL_DRAM), LC_RX, "cpu", ev "." local, "event=" code ",umask=0x08", NULL, 1.0 }, \
    { B(REMOTE_DRAM), LC_RX, "cpu", ev "." remote, "event=" code ",umask=0x40", NULL, 1.0 }, \
    { B(REMOTE_CACHE), LC_RX, "cpu", ev "." far_cache, "event=" code ",umask=0x10", NULL, 1.0 }
#define ZEN4_CORE ZEN_CORE("0x44", "ls_any_fills_from_sys", "dram_io_near", "dram_io_far", "far_cache")

static const struct lc_ctr_event zen5_events[] = {
    DF_IN(0, "0x41e"), DF_IN(1, "0x45e"), DF_IN(2, "0x49e"), DF_IN(3, "0x4de"),
    DF_IN(4, "0x51e"), DF_IN(5, "0x55e"), DF_IN(6, "0x59e"), DF_IN(7, "0x5de"),
    DF_IN(8, "0x41f"), DF_IN(9, "0x45f"), DF_IN(10, "0x49f"), DF_IN(11, "0x4df"),
    DF_IN(12, "0x51f"), DF_IN(13, "0x55f"), DF_IN(14, "0x59f"), DF_IN(15, "0x5df"),
    DF_OUT(0, "0x41e"), DF_OUT(1, "0x45e"), DF_OUT(2, "0x49e"), DF_OUT(3, "0x4de"),
    DF_OUT(4, "0x51e"), DF_OUT(5, "0x55e"), DF_OUT(6, "0x59e"), DF_OUT(7, "0x5de"),
    DF_OUT(8, "0x41f"), DF_OUT(9, "0x45f"), DF_OUT(10, "0x49f"), DF_OUT(11, "0x4df"),
    DF_OUT(12, "0x51f"), DF_OUT(13, "0x55f"), DF_OUT(14, "0x59f"), DF_OUT(15, "0x5df"),
    ZEN4_CORE,
};

static const struct lc_ctr_event zen4_events[] = { ZEN4_CORE };
static const struct lc_ctr_event zen3_events[] = {
    ZEN_CORE("0x44", "ls_any_fills_from_sys", "mem_io_local", "mem_io_remote", "ext_cache_remote"),
};
static const struct lc_ctr_event zen2_events[] = {
    ZEN_CORE("0x43", "ls_refills_from_sys", "ls_mabresp_lcl_dram", "ls_mabresp_rmt_dram",
             "ls_mabresp_rmt_cache"),
};

#define ZEN_NO_CLASS "AMD's data fabric counts data beats, not coherence message classes"
#define ZEN_PROXIES(what)                                                            \
    [LOCUS_COUNTER_LOCAL_DRAM] = PROXY("fills", what " from DRAM or I/O of the local NUMA node"), \
    [LOCUS_COUNTER_REMOTE_DRAM] = PROXY("fills",                                       \
        what " from DRAM or I/O of another NUMA node (same or other socket)"),         \
    [LOCUS_COUNTER_REMOTE_CACHE] = PROXY("fills",                                      \
        what " from a cache of another CCX in another NUMA node")

static const struct lc_ctr_table zen5_table = {
    "zen5", "AMD Zen 5 (data fabric)", zen5_events, sizeof zen5_events / sizeof zen5_events[0],
    {
        NO_MESSAGE_CLASSES(ZEN_NO_CLASS),
        [LOCUS_COUNTER_LINK_BYTES] = FLITS("bytes",
            "data fabric beats between the core complexes and a remote socket "
            "(in: 32-byte beats, out: 64-byte beats)"),
        ZEN_PROXIES("L1D fills"),
    },
};

#define ZEN_NO_DF "no remote-socket data fabric event is confirmed for Zen 2/3/4"
#define ZEN_CORE_ONLY(what)                                                          \
    {                                                                                \
        NO_MESSAGE_CLASSES(ZEN_NO_DF),                                               \
        [LOCUS_COUNTER_LINK_BYTES] = NONE(ZEN_NO_DF),                                \
        ZEN_PROXIES(what),                                                           \
    }

static const struct lc_ctr_table zen4_table = {
    "zen4", "AMD Zen 4 (core proxies only)", zen4_events, sizeof zen4_events / sizeof zen4_events[0],
    ZEN_CORE_ONLY("L1D fills"),
};

static const struct lc_ctr_table zen3_table = {
    "zen3", "AMD Zen 3 (core proxies only)", zen3_events, sizeof zen3_events / sizeof zen3_events[0],
    ZEN_CORE_ONLY("L1D fills"),
};

/* Zen 2's event counts demand fills only: prefetches are not in it. */
static const struct lc_ctr_table zen2_table = {
    "zen2", "AMD Zen 2 (core proxies only)", zen2_events, sizeof zen2_events / sizeof zen2_events[0],
    ZEN_CORE_ONLY("L1D demand fills"),
};

const struct lc_ctr_table *const lc_ctr_tables[] = {
    &skx_table, &icx_table, &spr_table, &hswep_table, &zen2_table, &zen3_table, &zen4_table, &zen5_table, NULL,
};

const struct lc_ctr_table *lc_ctr_table_find(const char *name)
{
    for (int i = 0; lc_ctr_tables[i] != NULL; i++)
        if (strcmp(lc_ctr_tables[i]->name, name) == 0)
            return lc_ctr_tables[i];
    return NULL;
}

int lc_ctr_event_is_core(const struct lc_ctr_event *e)
{
    return strcmp(e->pmu, "cpu") == 0;
}

const struct lc_ctr_table *lc_ctr_table_for(const struct lc_ctr_machine *m, char *buf, size_t len)
{
    const char *name = NULL;

    if (strcmp(m->vendor, "GenuineIntel") == 0 && m->family == 6) {
        switch (m->model) {
        case 0x55: name = "skx"; break;            /* Skylake-SP, Cascade/Cooper Lake */
        case 0x6a: case 0x6c: name = "icx"; break; /* Ice Lake-SP, -D */
        case 0x8f: case 0xcf: name = "spr"; break; /* Sapphire Rapids, Emerald Rapids */
        case 0x3f: case 0x4f: case 0x56: name = "hswep"; break; /* Haswell-EP/EX, Broadwell-EP/DE */
        default: break;
        }
    } else if (strcmp(m->vendor, "AuthenticAMD") == 0) {
        /* as perf's mapfile.csv: Zen 1 is family 0x17 models 0x00-0x2f */
        if (m->family == 0x1a)
            name = "zen5";
        else if (m->family == 0x19)
            name = m->model <= 0x0f || (m->model >= 0x20 && m->model <= 0x5f) ? "zen3" : "zen4";
        else if (m->family == 0x17 && m->model >= 0x30)
            name = "zen2";
    }
    if (name != NULL)
        return lc_ctr_table_find(name);
    if (buf != NULL && len > 0) {
        if (m->family < 0)
            snprintf(buf, len, "unknown CPU (no vendor/family/model in cpuinfo)");
        else
            snprintf(buf, len, "no event table for %s family 0x%x model 0x%x "
                     "(known: Skylake-SP/Cascade Lake, Ice Lake-SP, Sapphire/Emerald Rapids, "
                     "Haswell/Broadwell-EP, AMD Zen 2-5)", m->vendor[0] ? m->vendor : "this CPU",
                     (unsigned)m->family, (unsigned)m->model);
    }
    return NULL;
}
