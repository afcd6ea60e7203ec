//! The normal force of 002 on the overlap area.

/// The characteristic length of a contact, l_c = rᵢ + rⱼ with r = √(A_body/π) the radius
/// of the disc of equal area (002 eq. 5).
pub fn characteristic_length(radius_i: f64, radius_j: f64) -> f64 {
    radius_i + radius_j
}

/// The elastic normal force F_n = k_n A / l_c (002 eq. 5), as a magnitude pushing the
/// bodies apart (002 writes it with a minus sign along the normal from i to j), for
/// stiffness k_n (N/m), overlap area A (m²) and characteristic length l_c (m).
pub fn normal_force(stiffness: f64, area: f64, characteristic_length: f64) -> f64 {
    stiffness * area / characteristic_length
}

/// The viscous force F_v = −m_r ν v_c (002 eqs. 2-3) for reduced mass
/// m_r = (1/mᵢ + 1/mⱼ)⁻¹ (kg), damping coefficient ν (1/s) and relative velocity v_c at
/// the contact (a component or a vector's length, m/s).
pub fn viscous_force(reduced_mass: f64, damping: f64, relative_velocity: f64) -> f64 {
    -reduced_mass * damping * relative_velocity
}
