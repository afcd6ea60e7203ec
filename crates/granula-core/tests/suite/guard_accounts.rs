//! `EnergyGuard::check_accounts`: the interval check for accounts a host sums itself (a run
//! split over processes). Two intervals in a row that gain more than `max_gain` of the
//! energy in play stop the run; one does not; a non-finite account stops it at once.

use granula_core::{EnergyGuard, GuardAccounts};

fn accounts(kinetic: f64, potential: f64, dissipated: f64) -> GuardAccounts {
    GuardAccounts { kinetic, potential, stored: 0.0, dissipated, work: 0.0, strikes: 0 }
}

#[test]
fn energy_that_only_changes_form_passes() {
    let guard = EnergyGuard { every: 10, max_gain: 0.5 };
    let mut last = None;
    // A fall: potential energy becomes kinetic energy and dissipation, the balance stays 10 J.
    for k in 0..20 {
        let f = k as f64 / 20.0;
        assert_eq!(guard.check_accounts(&mut last, accounts(6.0 * f, 10.0 * (1.0 - f), 4.0 * f)), None, "check {k}");
    }
    assert_eq!(last.map(|a| a.strikes), Some(0));
}

#[test]
fn two_gaining_intervals_in_a_row_stop_the_run() {
    let guard = EnergyGuard { every: 10, max_gain: 0.5 };
    let mut last = None;
    assert_eq!(guard.check_accounts(&mut last, accounts(1.0, 0.0, 0.0)), None);
    // +2 J on 3 J in play (kinetic 3 J): a strike, not yet a stop.
    assert_eq!(guard.check_accounts(&mut last, accounts(3.0, 0.0, 0.0)), None);
    assert_eq!(last.map(|a| a.strikes), Some(1));
    // A quiet interval clears the strike.
    assert_eq!(guard.check_accounts(&mut last, accounts(3.0, 0.0, 0.0)), None);
    assert_eq!(last.map(|a| a.strikes), Some(0));
    assert_eq!(guard.check_accounts(&mut last, accounts(9.0, 0.0, 0.0)), None);
    let r = guard.check_accounts(&mut last, accounts(27.0, 0.0, 0.0)).expect("second strike in a row");
    // Gain 18 J on 27 J in play.
    assert_eq!(r.gain, 18.0);
    assert!((r.ratio - 18.0 / 27.0).abs() < 1e-15);
    assert_eq!((r.limit, r.interval), (0.5, 10));
}

#[test]
fn a_non_finite_account_stops_at_once() {
    let guard = EnergyGuard::default();
    let mut last = None;
    assert_eq!(guard.check_accounts(&mut last, accounts(1.0, 0.0, 0.0)), None);
    assert!(guard.check_accounts(&mut last, accounts(f64::NAN, 0.0, 0.0)).is_some());
}
