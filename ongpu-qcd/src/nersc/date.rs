//! The dates written into gauge files: the current UTC time from the system clock alone (no
//! time-zone database, so no dependency), as NERSC's `CREATION_DATE` here and as QIO's
//! record date in `ildg`.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `YYYY-MM-DD hh:mm:ss UTC`.
pub(super) fn utc_now() -> String {
    utc(seconds_now())
}

/// Now, in seconds after 1970-01-01 00:00:00 UTC (0 if the clock is before it).
pub(crate) fn seconds_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `seconds` after 1970-01-01 00:00:00 UTC, as `YYYY-MM-DD hh:mm:ss UTC`.
fn utc(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01: the
/// `civil_from_days` algorithm of H. Hinnant's "chrono-Compatible Low-Level Date
/// Algorithms", for non-negative counts.
pub(crate) fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_709_251_199), "2024-02-29 23:59:59 UTC");
        assert_eq!(utc(1_735_689_600), "2025-01-01 00:00:00 UTC");
    }
}
