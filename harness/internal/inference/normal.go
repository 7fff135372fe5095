package inference

import mstats "github.com/aclements/go-moremath/stats"

// NormCDF is Φ, the standard normal distribution function, and
// NormQuantile Φ⁻¹.
var NormCDF, NormQuantile = mstats.StdNormal.CDF, mstats.StdNormal.InvCDF
