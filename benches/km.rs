//! Kaplan–Meier fit plus median with its confidence interval, on 10³, 10⁵ and 10⁶ subjects.
//!
//! The data are synthetic and deterministic (an inline SplitMix64 generator, so no `rand`
//! dependency): exponential event times, uniform censoring, about 30 % censored, times rounded
//! to 0.01 so that ties occur as they do in real day- or month-based data.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use readout::stats::{kaplan_meier, CiTransform};

/// SplitMix64: tiny, fast and good enough to make benchmark data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on (0, 1].
    fn next_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

fn synthetic(n: usize, seed: u64) -> (Vec<f64>, Vec<bool>) {
    let mut rng = SplitMix64(seed);
    let mut times = Vec::with_capacity(n);
    let mut events = Vec::with_capacity(n);
    for _ in 0..n {
        let event_time = -12.0 * rng.next_unit().ln();
        let censor_time = 40.0 * rng.next_unit();
        let t = event_time.min(censor_time);
        times.push((t * 100.0).round() / 100.0);
        events.push(event_time <= censor_time);
    }
    (times, events)
}

fn km_and_median(c: &mut Criterion) {
    let mut group = c.benchmark_group("km_median_ci");
    group.sample_size(10);
    for n in [1_000usize, 100_000, 1_000_000] {
        let (times, events) = synthetic(n, 20_240_601);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let km = kaplan_meier(black_box(&times), black_box(&events)).expect("valid");
                let median = km
                    .quantile(0.5, 0.95, CiTransform::LogLog)
                    .expect("valid level");
                black_box(median)
            })
        });
    }
    group.finish();

    // Continuous times (no ties): one step per subject, the worst case for memory.
    let mut group = c.benchmark_group("km_median_ci_untied");
    group.sample_size(10);
    let n = 1_000_000usize;
    let mut rng = SplitMix64(7);
    let times: Vec<f64> = (0..n).map(|_| -12.0 * rng.next_unit().ln()).collect();
    let events: Vec<bool> = (0..n).map(|_| rng.next_u64() % 10 < 7).collect();
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter(|| {
            let km = kaplan_meier(black_box(&times), black_box(&events)).expect("valid");
            black_box(
                km.quantile(0.5, 0.95, CiTransform::LogLog)
                    .expect("valid level"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, km_and_median);
criterion_main!(benches);
