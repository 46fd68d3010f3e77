/* Long-range attachments (Kim, Chentanez & Müller 2012, "Long Range Attachments"), as a part of
 * the strain projection (cloth_strain_limit.h): with every triangle within σ_max = 1 +
 * max_stretch, no path over the cloth is longer than σ_max times its rest length, so no vertex
 * is farther from a pin than σ_max times its shortest rest path to it over the mesh's edges.
 * The projection's Gauss-Seidel sweeps move a stretch spread over the whole cloth to the pins a
 * ring of triangles a sweep: a 65 x 65 sheet pinned along one side, stretched by 30% and swung
 * about that side by a step, was left with edges at 1.376 of rest after their cap of 400 sweeps
 * (tests/c/test_pin_reach.c; 17 x 17: 1.124). Pulling each free vertex back within that reach of its nearest pin
 * first (a bound the limited cloth meets anyway, so nothing within the limits moves) takes such a
 * stretch out in one pass (that sheet: within its limit after 1 sweep), and the sweeps are left
 * the local part. It does not bend paths: what a curved sheet has beyond its limit along the
 * curve is still the sweeps' to remove. */
#ifndef SB_CLOTH_PIN_REACH_H
#define SB_CLOTH_PIN_REACH_H

#include "cloth.h"

/* Moves every STRAIN_FREE vertex of x_new farther than `stretch` x its reach from its nearest
 * pin (by rest path) onto that sphere, its velocity v_new changed by the move / h, as the
 * projection does; the reaches found at the first call and kept in the scratch (pins and rest
 * shape never change). Returns how many it moved (none without memory: the sweeps alone). */
int32_t pin_reach_project(cloth *c, double stretch, double h);

#endif
