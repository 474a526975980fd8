use super::*;

/// Asserts |actual − expected| ≤ 1e-9·|expected|.
fn close(what: &str, actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 1e-9 * expected.abs(),
        "{what}: expected {expected}, got {actual} (relative error {:e})",
        ((actual - expected) / expected).abs()
    );
}

/// One stratum's ((x, n) of the arm, (x, n) of the reference).
type Stratum = ((usize, usize), (usize, usize));

/// One data set's `comparisons[0].orr` of
/// `/work/shared/reference/comparative/<ds>/expected.json` (R 4.2.2).
struct Expected {
    name: &'static str,
    arm: Counts,
    reference: Counts,
    difference: f64,
    newcombe: (f64, f64),
    wald: (f64, f64),
    odds_ratio: (f64, f64, f64),
    p_chisq: f64,
    p_fisher: f64,
    p_cmh: f64,
    /// Per STRAT level, (arm, reference) responders of subjects: counted from that folder's
    /// adsl.csv (ARM, STRAT) and adrs.csv (responder = PR on study days 43 and 85, a
    /// confirmed PR), the two compared arms only. Their sums are the n/N above.
    strata: &'static [Stratum],
}

const fn counts(x: usize, n: usize) -> Counts {
    Counts { x, n }
}

const EXPECTED: [Expected; 3] = [
    Expected {
        name: "lung (Arm B vs Arm A)",
        arm: counts(31, 90),
        reference: counts(30, 137),
        difference: 0.125466342254663,
        newcombe: (0.00742736169227312, 0.244966346655349),
        wald: (0.0053270032648056, 0.245605681244521),
        odds_ratio: (1.87401129943503, 1.03454531940846, 3.39464911253789),
        p_chisq: 0.0369836535995791,
        p_fisher: 0.0464879307743047,
        p_cmh: 0.0291570896221426,
        // ECOG 0, ECOG 1, ECOG 2
        strata: &[((5, 27), (8, 36)), ((19, 42), (17, 71)), ((7, 21), (5, 30))],
    },
    Expected {
        name: "veteran (Test vs Standard)",
        arm: counts(25, 68),
        reference: counts(14, 69),
        difference: 0.164748508098892,
        newcombe: (0.0134023023994709, 0.306866216042047),
        wald: (0.0159617200900437, 0.31353529610774),
        odds_ratio: (2.28405315614618, 1.06145725487992, 4.91484588391787),
        p_chisq: 0.0326336593794414,
        p_fisher: 0.0383092754770879,
        p_cmh: 0.0259469525849119,
        // squamous, smallcell, adeno, large
        strata: &[
            ((7, 20), (3, 15)),
            ((8, 18), (6, 30)),
            ((5, 18), (2, 9)),
            ((5, 12), (3, 15)),
        ],
    },
    Expected {
        name: "ovarian (Cyclophosphamide+Adriamycin vs Cyclophosphamide)",
        arm: counts(2, 13),
        reference: counts(5, 13),
        difference: -0.230769230769231,
        newcombe: (-0.51345401758886, 0.108577467386304),
        wald: (-0.560021598917565, 0.0984831373791034),
        odds_ratio: (0.290909090909091, 0.0445790380571964, 1.89838325055316),
        p_chisq: 0.184699559516488,
        p_fisher: 0.378260869565217,
        p_cmh: 0.170861123088533,
        // Residual 1, Residual 2
        strata: &[((1, 6), (3, 5)), ((1, 7), (2, 8))],
    },
];

#[test]
fn matches_r_reference() {
    for e in &EXPECTED {
        let name = e.name;
        let r = compare_proportions(e.arm, e.reference, 0.95).unwrap();
        close(&format!("{name} difference"), r.difference, e.difference);
        close(
            &format!("{name} newcombe lower"),
            r.newcombe.lower,
            e.newcombe.0,
        );
        close(
            &format!("{name} newcombe upper"),
            r.newcombe.upper,
            e.newcombe.1,
        );
        close(&format!("{name} wald lower"), r.wald.lower, e.wald.0);
        close(&format!("{name} wald upper"), r.wald.upper, e.wald.1);
        let or = r.odds_ratio.unwrap();
        close(&format!("{name} odds ratio"), or.estimate, e.odds_ratio.0);
        close(
            &format!("{name} odds ratio lower"),
            or.lower,
            e.odds_ratio.1,
        );
        close(
            &format!("{name} odds ratio upper"),
            or.upper,
            e.odds_ratio.2,
        );
        close(&format!("{name} p_chisq"), r.p_chisq.unwrap(), e.p_chisq);
        close(&format!("{name} p_fisher"), r.p_fisher, e.p_fisher);

        let strata: Vec<(Counts, Counts)> = e
            .strata
            .iter()
            .map(|&((x1, n1), (x0, n0))| (counts(x1, n1), counts(x0, n0)))
            .collect();
        let (arm, reference) = strata.iter().fold((counts(0, 0), counts(0, 0)), |acc, s| {
            (
                counts(acc.0.x + s.0.x, acc.0.n + s.0.n),
                counts(acc.1.x + s.1.x, acc.1.n + s.1.n),
            )
        });
        assert_eq!((arm, reference), (e.arm, e.reference), "{name} strata sums");
        let test = cmh(&strata).unwrap();
        close(&format!("{name} p_cmh"), test.p.unwrap(), e.p_cmh);
        assert!(test.dropped.is_empty(), "{name}");
    }
}

#[test]
fn fisher_textbook_and_symmetry() {
    // R: fisher.test(matrix(c(3, 1, 1, 3), 2))$p.value
    let p = fisher_exact(3, 1, 1, 3);
    assert!((p - 0.4857142857142857).abs() < 1e-15, "{p}");
    // Transposes and row/column swaps give the same p-value.
    let p = fisher_exact(2, 11, 5, 8);
    for q in [
        fisher_exact(2, 5, 11, 8),
        fisher_exact(5, 8, 2, 11),
        fisher_exact(11, 2, 8, 5),
    ] {
        assert!((p - q).abs() < 1e-14, "{p} {q}");
    }
    // The observed table is the only one at the extreme: one-cell-ish support.
    // R: fisher.test(matrix(c(10, 0, 0, 10), 2))$p.value = 2 / choose(20, 10)
    let p = fisher_exact(10, 0, 0, 10);
    close("fisher 10/0/0/10", p, 2.0 / 184756.0);
}

#[test]
fn zero_cell_has_no_odds_ratio() {
    let r = compare_proportions(counts(0, 10), counts(4, 12), 0.95).unwrap();
    assert_eq!(r.odds_ratio, None);
    assert!(r.p_chisq.is_some());
    assert!(r.p_fisher > 0.0 && r.p_fisher < 1.0);
    assert!(r.newcombe.lower >= -1.0 && r.newcombe.upper <= 1.0);
    let r = compare_proportions(counts(10, 10), counts(4, 12), 0.95).unwrap();
    assert_eq!(r.odds_ratio, None);
}

#[test]
fn all_responders() {
    let r = compare_proportions(counts(8, 8), counts(5, 5), 0.95).unwrap();
    assert_eq!(r.difference, 0.0);
    assert_eq!(r.p_chisq, None);
    assert_eq!(r.p_fisher, 1.0);
    assert_eq!(r.odds_ratio, None);
    let r = compare_proportions(counts(0, 8), counts(0, 5), 0.95).unwrap();
    assert_eq!(r.p_chisq, None);
    assert_eq!(r.p_fisher, 1.0);
    assert_eq!(fisher_exact(0, 0, 0, 0), 1.0);
}

#[test]
fn big_table_is_fast_and_exact() {
    let start = std::time::Instant::now();
    // 5000/10000 vs 5100/10000.
    let p = fisher_exact(5000, 5000, 5100, 4900);
    assert!(p > 0.0 && p < 1.0, "{p}");
    // Exact rational value (Python integers: Σ C(10000, a)·C(10000, 10100 − a) over the
    // tables with probability ≤ observed·(1 + 1e-7), divided by C(20000, 10100)).
    assert!(((p - BIG_TABLE_P) / BIG_TABLE_P).abs() < 1e-10, "{p}");
    let r = compare_proportions(counts(5000, 10000), counts(5100, 10000), 0.95).unwrap();
    assert!(r.p_chisq.unwrap() > 0.0 && r.p_chisq.unwrap() < 1.0);
    assert!(start.elapsed().as_secs_f64() < 1.0);
}

const BIG_TABLE_P: f64 = 0.16146929150845807;

#[test]
fn fisher_far_tail_is_exact() {
    // Exact rational value as for BIG_TABLE_P; R's fisher.test gives 1.655964e-08.
    let p = fisher_exact(4700, 5300, 5100, 4900);
    let exact = 1.655964196069169e-8;
    assert!(((p - exact) / exact).abs() < 1e-10, "{p}");
}

#[test]
fn cmh_edges() {
    // Single-subject and one-arm strata contribute nothing, and are listed.
    let base = [
        (counts(5, 27), counts(8, 36)),
        (counts(19, 42), counts(17, 71)),
    ];
    let p = cmh(&base).unwrap().p.unwrap();
    let more = [
        base[0],
        (counts(1, 1), counts(0, 0)),
        base[1],
        (counts(0, 0), counts(0, 0)),
        (counts(3, 7), counts(0, 0)),
        (counts(0, 0), counts(2, 2)),
    ];
    let test = cmh(&more).unwrap();
    assert_eq!(test.p, Some(p));
    assert_eq!(test.dropped, [1, 3, 4, 5]);
    // No stratum with both arms: not estimable.
    let test = cmh(&[(counts(3, 7), counts(0, 0))]).unwrap();
    assert_eq!((test.p, test.dropped), (None, vec![0]));
    assert_eq!(cmh(&[]).unwrap().p, None);
    // One stratum: the CMH statistic is the Pearson one times (N − 1)/N.
    let one = cmh(&[(counts(31, 90), counts(30, 137))])
        .unwrap()
        .p
        .unwrap();
    let n = 227.0;
    let x2 = n * (31.0 * 107.0 - 59.0 * 30.0_f64).powi(2) / (90.0 * 137.0 * 61.0 * 166.0);
    assert!((one - chisq_upper(x2 * (n - 1.0) / n, 1).unwrap()).abs() < 1e-15);
    assert!(cmh(&[(counts(3, 2), counts(0, 1))]).is_err());
}

/// |actual − expected| ≤ 1e-9·|expected| + 1e-12 (a limit or estimate may be 0).
fn near(what: &str, actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 1e-9 * expected.abs() + 1e-12,
        "{what}: expected {expected}, got {actual}"
    );
}

/// A number of tests/reference/mn/expected.json.
fn number(case: &serde_json::Value, key: &str) -> f64 {
    case[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} of {case}"))
}

fn strata_of(case: &serde_json::Value) -> Vec<(Counts, Counts)> {
    case["strata"]
        .as_array()
        .expect("strata")
        .iter()
        .map(|row| {
            let c: Vec<usize> = row
                .as_array()
                .expect("row")
                .iter()
                .map(|v| v.as_u64().expect("count") as usize)
                .collect();
            (counts(c[0], c[1]), counts(c[2], c[3]))
        })
        .collect()
}

/// Every interval of tests/reference/mn/expected.json (its make_mn.R: restricted estimates
/// from the likelihood's score equation by uniroot, not from the cubic), to 1e-9.
#[test]
fn mn_matches_r_reference() {
    let expected: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/reference/mn/expected.json"))
            .expect("expected.json");
    let unstratified = expected["unstratified"].as_array().expect("unstratified");
    assert!(unstratified.len() >= 15);
    for case in unstratified {
        let name = case["name"].as_str().expect("name");
        let arm = counts(number(case, "x1") as usize, number(case, "n1") as usize);
        let reference = counts(number(case, "x0") as usize, number(case, "n0") as usize);
        let level = number(case, "level");
        let mn = miettinen_nurminen(arm, reference, level).unwrap();
        near(&format!("{name} lower"), mn.lower, number(case, "lower"));
        near(&format!("{name} upper"), mn.upper, number(case, "upper"));
        let compared = compare_proportions(arm, reference, level).unwrap();
        assert_eq!(compared.mn, mn, "{name}");
        near(
            &format!("{name} estimate"),
            compared.difference,
            number(case, "estimate"),
        );
    }
    let stratified = expected["stratified"].as_array().expect("stratified");
    assert!(stratified.len() >= 10);
    for case in stratified {
        let name = case["name"].as_str().expect("name");
        let strata = strata_of(case);
        let level = number(case, "level");
        let got = match case["weights"].as_str() {
            Some("cmh") => stratified_mn(&strata, level).unwrap(),
            Some("ss") => stratified_score(&strata, level, |n1, n0| n1 + n0).unwrap(),
            other => panic!("{name}: weights {other:?}"),
        };
        assert_eq!(
            got.dropped.len() as f64,
            number(case, "dropped"),
            "{name} dropped"
        );
        match got.difference {
            None => assert!(case["estimate"].is_null(), "{name}: none"),
            Some(d) => {
                near(
                    &format!("{name} estimate"),
                    d.estimate,
                    number(case, "estimate"),
                );
                near(&format!("{name} lower"), d.lower, number(case, "lower"));
                near(&format!("{name} upper"), d.upper, number(case, "upper"));
            }
        }
    }
    // Every table of 1 to 5 subjects per arm.
    let grid = expected["small_tables"].as_array().expect("small tables");
    assert_eq!(grid.len(), 400);
    for row in grid {
        let v: Vec<f64> = row
            .as_array()
            .expect("row")
            .iter()
            .map(|v| v.as_f64().expect("number"))
            .collect();
        let (arm, reference) = (
            counts(v[0] as usize, v[1] as usize),
            counts(v[2] as usize, v[3] as usize),
        );
        let mn = miettinen_nurminen(arm, reference, 0.95).unwrap();
        near(&format!("{arm:?} {reference:?} lower"), mn.lower, v[4]);
        near(&format!("{arm:?} {reference:?} upper"), mn.upper, v[5]);
    }
    // The pooled table of the comparisons_edge study, as its test expects it.
    let pooled = &expected["edge_pooled"];
    let r = compare_proportions(counts(31, 44), counts(13, 44), 0.95).unwrap();
    for (method, interval) in [("newcombe", r.newcombe), ("wald", r.wald), ("mn", r.mn)] {
        near(method, interval.lower, number(&pooled[method], "lower"));
        near(method, interval.upper, number(&pooled[method], "upper"));
    }
}

/// Published numbers, to the digits printed (tests/reference/README.md says where each is
/// from).
#[test]
fn mn_matches_published_numbers() {
    // |actual − printed| within half a unit of the last printed digit.
    let printed = |what: &str, actual: f64, value: f64, digits: i32| {
        let half = 0.5 * 10f64.powi(-digits) + 1e-12;
        assert!(
            (actual - value).abs() <= half,
            "{what}: printed {value}, got {actual}"
        );
    };
    // Newcombe (1998), Table II, Miettinen–Nurminen: (a), (b) and (g).
    for (x1, n1, x0, n0, lower, upper) in [
        (56, 70, 48, 80, 0.0528, 0.3382),
        (9, 10, 3, 10, 0.1700, 0.8406),
        (10, 10, 0, 20, 0.7156, 1.0000),
    ] {
        let mn = miettinen_nurminen(counts(x1, n1), counts(x0, n0), 0.95).unwrap();
        let what = format!("Newcombe {x1}/{n1} - {x0}/{n0}");
        printed(&what, mn.lower, lower, 4);
        printed(&what, mn.upper, upper, 4);
    }
    // Fagerland, Lydersen and Laake (2017), chapter 4: Ritland et al. (2007), 0/16 vs 15/72.
    let mn = miettinen_nurminen(counts(0, 16), counts(15, 72), 0.95).unwrap();
    printed("Ritland lower", mn.lower, -0.3164, 4);
    printed("Ritland upper", mn.upper, -0.0056, 4);
    // cicalc's example of ci_prop_diff_mn_strata (score): 7/10 vs 5/10 and 5/10 vs 4/10.
    let strata = [
        (counts(7, 10), counts(5, 10)),
        (counts(5, 10), counts(4, 10)),
    ];
    for (level, lower, upper) in [(0.95, -0.1606, 0.4338), (0.99, -0.2509, 0.5072)] {
        let d = stratified_mn(&strata, level).unwrap().difference.unwrap();
        printed("cicalc estimate", d.estimate, 0.15, 4);
        printed("cicalc lower", d.lower, lower, 4);
        printed("cicalc upper", d.upper, upper, 4);
    }
    // metalite.ae's example of rate_compare (weights n₁ + n₀, bisection to 1e-6): four
    // strata counted from its vectors.
    let strata = [
        (counts(15, 25), counts(5, 26)),
        (counts(15, 25), counts(5, 24)),
        (counts(15, 25), counts(5, 26)),
        (counts(15, 25), counts(5, 24)),
    ];
    let d = stratified_score(&strata, 0.95, |n1, n0| n1 + n0)
        .unwrap()
        .difference
        .unwrap();
    printed("metalite estimate", d.estimate, 0.3998397, 6);
    printed("metalite lower", d.lower, 0.2684383, 6);
    printed("metalite upper", d.upper, 0.5172779, 6);
}

#[test]
fn stratified_mn_of_one_stratum_is_unstratified() {
    for (arm, reference) in [
        (counts(31, 90), counts(30, 137)),
        (counts(0, 16), counts(15, 72)),
        (counts(10, 10), counts(0, 20)),
        (counts(1, 1), counts(0, 1)),
        (counts(3, 3), counts(3, 3)),
    ] {
        let one = miettinen_nurminen(arm, reference, 0.95).unwrap();
        let d = stratified_mn(&[(arm, reference)], 0.95)
            .unwrap()
            .difference
            .unwrap();
        assert!((d.lower - one.lower).abs() < 1e-12, "{arm:?} {reference:?}");
        assert!((d.upper - one.upper).abs() < 1e-12, "{arm:?} {reference:?}");
        let r = compare_proportions(arm, reference, 0.95).unwrap();
        assert_eq!(d.estimate, r.difference);
    }
}

#[test]
fn stratified_mn_edges() {
    // Strata with an empty arm are left out and listed; the rest as without them.
    let base = [
        (counts(30, 40), counts(3, 4)),
        (counts(1, 4), counts(10, 40)),
    ];
    let without = stratified_mn(&base, 0.95).unwrap();
    assert!(without.dropped.is_empty());
    let with = stratified_mn(
        &[
            (counts(2, 3), counts(0, 0)),
            base[0],
            (counts(0, 0), counts(0, 0)),
            base[1],
        ],
        0.95,
    )
    .unwrap();
    assert_eq!(with.dropped, [0, 2]);
    assert_eq!(with.difference, without.difference);
    // Arms balanced within strata, unbalanced across them: the difference is 0.
    assert_eq!(without.difference.unwrap().estimate, 0.0);
    // No stratum with both arms, or none at all: not estimable.
    let none = stratified_mn(&[(counts(3, 5), counts(0, 0))], 0.95).unwrap();
    assert_eq!((none.difference, none.dropped), (None, vec![0]));
    assert_eq!(stratified_mn(&[], 0.95).unwrap().difference, None);
    // Limits in [−1, 1], the estimate inside.
    let d = stratified_mn(
        &[(counts(4, 4), counts(0, 6)), (counts(2, 2), counts(0, 3))],
        0.95,
    )
    .unwrap()
    .difference
    .unwrap();
    assert_eq!((d.estimate, d.upper), (1.0, 1.0));
    assert!(d.lower > 0.0 && d.lower < 1.0);
    assert!(stratified_mn(&[(counts(3, 2), counts(0, 1))], 0.95).is_err());
    assert!(matches!(
        stratified_mn(&base, 1.0),
        Err(StatsError::InvalidLevel(_))
    ));
}

#[test]
fn rejects_bad_input() {
    assert_eq!(
        compare_proportions(counts(0, 0), counts(1, 2), 0.95),
        Err(StatsError::NoTrials)
    );
    assert_eq!(
        compare_proportions(counts(1, 2), counts(3, 2), 0.95),
        Err(StatsError::SuccessesExceedTrials {
            successes: 3,
            trials: 2
        })
    );
    for level in [0.0, 1.0, f64::NAN] {
        assert!(matches!(
            compare_proportions(counts(1, 2), counts(1, 2), level),
            Err(StatsError::InvalidLevel(_))
        ));
    }
}
