/* The world's force fields acting on one cloth: wind as pressure on its triangles (on strands,
 * as drag across their segments: strand_wind.h), the other fields on its vertices by their rest
 * areas (a strand's: its length), with the derivatives the implicit solve takes. */
#ifndef SB_CLOTH_FIELDS_H
#define SB_CLOTH_FIELDS_H

#include "cloth.h"
#include "cloth_assembly.h"
#include "force_field.h"

/* Adds the fields' forces at state (x, v) to f and, with an assembly, their derivatives to its
 * matrix and right-hand side (not h f: the caller adds that for the whole force). */
void cloth_field_forces(const cloth *c, const field_list *fields, const double *x, const double *v, double *f,
                        const assembly *as);

/* A cloth that has not stepped starts with its gravity as the warm acceleration ā
 * (cloth_create); this sets it to gravity plus the fields' push at its state now,
 * a_i = g s + f_i / m_i, so a constant field's acceleration is integrated exactly from the first
 * step on, as gravity's is. The same however often it is called. Uses c->scratch.force as room. */
void cloth_seed_field_acceleration(cloth *c, const double gravity[3], const field_list *fields);

#endif
