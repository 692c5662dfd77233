//! What a Monte Carlo chain's summary prints of its Metropolis steps.

/// The acceptance and Creutz's `⟨exp(−ΔH)⟩` (1 for an exact algorithm) with its error and
/// distance from 1, from the weights `exp(−ΔH)` of the measured trajectories.
pub fn acceptance_line(weights: &[f64], accepted: usize) -> String {
    let n = weights.len() as f64;
    let mean = weights.iter().sum::<f64>() / n;
    let err =
        (weights.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() / n.sqrt();
    format!(
        "acceptance {:.1}% ({accepted} of {}); <exp(-ΔH)> = {mean:.4} ± {err:.4} ({:.1}σ from 1)",
        100.0 * accepted as f64 / n,
        weights.len(),
        (mean - 1.0).abs() / err
    )
}
