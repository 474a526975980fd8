//! The CSR adverse-event tables (by system organ class and preferred term, subjects and
//! events, and by highest grade, counted once; and the serious subset) on 10⁶ synthetic AE records of
//! 10⁵ subjects, 27 classes and 1,000 terms (docs/PERFORMANCE.md). Deterministic SplitMix64.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use readout::config::AeSort;
use readout::endpoints::soc::{by_soc, by_soc_and_grade};
use readout::model::{AdverseEvent, AeAction};

struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn events(n: usize) -> Vec<AdverseEvent> {
    let mut rng = SplitMix64(20_261_202);
    (0..n)
        .map(|_| {
            let r = rng.next_u64();
            let term = (r % 1000) as usize;
            AdverseEvent {
                usubjid: format!("SUBJ-{:06}", (r >> 10) % 100_000),
                term: format!("TERM {term:04}"),
                soc: Some(format!("SYSTEM ORGAN CLASS {:02}", term % 27)),
                grade: Some(1 + ((r >> 40) % 5) as u8),
                by_severity: false,
                related: r & 1 == 0,
                start: None,
                emergent: true,
                serious: (r >> 50) % 10 == 0,
                fatal: false,
                action: AeAction::Other,
            }
        })
        .collect()
}

fn ae_tables(c: &mut Criterion) {
    let records = events(1_000_000);
    let mut group = c.benchmark_group("ae_tables");
    group.sample_size(10);
    group.throughput(Throughput::Elements(records.len() as u64));
    group.bench_function("1000000", |b| {
        b.iter(|| {
            let (all, graded) = by_soc_and_grade(records.iter(), AeSort::Frequency);
            let serious = by_soc(records.iter().filter(|e| e.serious), AeSort::Frequency);
            black_box((all, serious, graded))
        })
    });
    group.finish();
}

criterion_group!(benches, ae_tables);
criterion_main!(benches);
