//! Calendar arithmetic on `YYYY-MM-DD` dates, the only date form the data
//! set uses (times are `YYYY-MM-DDTHH:MM:SSZ`, compared as text).

/// A date's year, month and day, when it is a valid `YYYY-MM-DD`.
pub fn parse(date: &str) -> Option<(i64, u32, u32)> {
    let mut parts = date.get(..10)?.split('-');
    let year = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    ((1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day))
        .then_some((year, month, day))
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

/// The date `months` months before `date` (the day clamped to the month's
/// length), or None for an invalid date.
///
/// ```
/// assert_eq!(market_analyst::dates::months_before("2026-11-27", 1).as_deref(), Some("2026-10-27"));
/// assert_eq!(market_analyst::dates::months_before("2026-03-31", 1).as_deref(), Some("2026-02-28"));
/// assert_eq!(market_analyst::dates::months_before("2026-11-27", 12).as_deref(), Some("2025-11-27"));
/// ```
pub fn months_before(date: &str, months: u32) -> Option<String> {
    let (year, month, day) = parse(date)?;
    let index = year * 12 + i64::from(month - 1) - i64::from(months);
    let (year, month) = (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32);
    let day = day.min(days_in_month(year, month));
    Some(format!("{year:04}-{month:02}-{day:02}"))
}

/// Days since 1970-01-01 (negative before), by Howard Hinnant's
/// `days_from_civil`.
pub fn days_since_epoch(date: &str) -> Option<i64> {
    let (year, month, day) = parse(date)?;
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The date `days` days after 1970-01-01, by Hinnant's `civil_from_days`.
pub fn from_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The calendar day before `date`.
///
/// ```
/// assert_eq!(market_analyst::dates::day_before("2026-03-01").as_deref(), Some("2026-02-28"));
/// ```
pub fn day_before(date: &str) -> Option<String> {
    days_since_epoch(date).map(|d| from_days(d - 1))
}

/// A number shared by the dates of one Monday-to-Sunday week.
///
/// ```
/// use market_analyst::dates::week;
/// assert_eq!(week("2026-11-23"), week("2026-11-27")); // Monday and Friday
/// assert_ne!(week("2026-11-27"), week("2026-11-30")); // Friday and the next Monday
/// ```
pub fn week(date: &str) -> Option<i64> {
    // 1970-01-01 was a Thursday: three days after a Monday.
    days_since_epoch(date).map(|d| (d + 3).div_euclid(7))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_dates_are_refused() {
        assert_eq!(parse("2026-02-29"), None);
        assert_eq!(parse("2024-02-29"), Some((2024, 2, 29)));
        assert_eq!(parse("2026-13-01"), None);
        assert_eq!(parse("yesterday"), None);
        assert_eq!(months_before("nonsense", 1), None);
    }

    #[test]
    fn from_days_inverts_days_since_epoch() {
        for date in [
            "1970-01-01",
            "2024-02-29",
            "2026-03-01",
            "2026-11-27",
            "1969-12-31",
        ] {
            assert_eq!(from_days(days_since_epoch(date).unwrap()), date);
        }
    }

    #[test]
    fn days_since_epoch_counts_from_1970() {
        assert_eq!(days_since_epoch("1970-01-01"), Some(0));
        assert_eq!(days_since_epoch("2026-11-27"), Some(20_784));
    }
}
