/*
 * The self-contained HTML viewer file (docs/viewer.md): the page and its script, the 3-D
 * library (three.js, gzip-compressed, base64) and the run's data as JSON, all in one file
 * that any browser opens offline.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "liedyn/liedyn.h"
#include "safefile.h"
#include "view.h"
#include "../core/oom.h"

/* viewer_assets.c (the build directory), generated at build time (scripts/viewer-assets). */
extern const char ld_viewer_missing[];
extern const unsigned char ld_three_core[], ld_three_module[], ld_three_license[], ld_viewer_js[],
    ld_viewer_html[];
extern const unsigned long ld_three_core_len, ld_three_module_len, ld_three_license_len,
    ld_viewer_js_len, ld_viewer_html_len;

const char *ld_io_html_missing(void) {
    return ld_viewer_missing[0] ? ld_viewer_missing : NULL;
}

static void base64(FILE *f, const unsigned char *p, size_t n) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        fputc(A[v >> 18], f), fputc(A[(v >> 12) & 63], f), fputc(A[(v >> 6) & 63], f),
            fputc(A[v & 63], f);
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        fputc(A[v >> 18], f), fputc(A[(v >> 12) & 63], f);
        fputc(i + 1 < n ? A[(v >> 6) & 63] : '=', f), fputc('=', f);
    }
}

/* s as a JSON string that is safe inside a <script> element (no '<'). */
static void jstr(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            fprintf(f, "\\u%04x", (unsigned)*p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void jvec(FILE *f, const double *v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; ++i) fprintf(f, "%s%.7g", i ? "," : "", isfinite(v[i]) ? v[i] : 0.0);
    fputc(']', f);
}

/* Text (a script) with every "</" written as "<\/": the same in JavaScript strings and regular
 * expressions, and no end of the script element. */
static void script_text(FILE *f, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (p[i] == '<' && i + 1 < n && p[i + 1] == '/') {
            fputs("<\\", f);
            continue;
        }
        fputc(p[i], f);
    }
}

static void json_shapes(FILE *f, const char *key, const view_shape *v, int n) {
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < n; ++i) {
        fprintf(f, "%s{\"body\":%d,\"type\":", i ? "," : "", v[i].s.body);
        jstr(f, ld_shape_kind_name(v[i].s.kind));
        fputs(",\"size\":", f);
        jvec(f, v[i].s.size, 3);
        fputs(",\"center\":", f);
        jvec(f, v[i].s.center, 3);
        fputs(",\"q\":", f);
        jvec(f, v[i].q, 4);
        if (v[i].s.color[0] >= 0.0) {
            fputs(",\"color\":", f);
            jvec(f, v[i].s.color, 3);
        }
        if (v[i].s.kind == LD_SHAPE_MESH) fprintf(f, ",\"mesh\":%d", v[i].s.mesh);
        fprintf(f, ",\"auto\":%d}", v[i].automatic);
    }
    fputc(']', f);
}

static void json_joints(FILE *f, const ld_model *m) {
    fputs(",\"joints\":[", f);
    int k = 0;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *J = &m->joints[j];
        if (J->kind == LD_JOINT_DRIVER) continue; /* drawn by the joint it drives */
        double p1[3], p2[3], a[3];
        ld_io_scene_joint(m, j, p1, p2, a);
        fprintf(f, "%s{\"name\":", k++ ? "," : "");
        jstr(f, J->name);
        fputs(",\"type\":", f);
        jstr(f, ld_joint_kind_name(J->kind));
        fprintf(f, ",\"b1\":%d,\"b2\":%d,\"p1\":", J->body1, J->body2);
        jvec(f, p1, 3);
        fputs(",\"p2\":", f);
        jvec(f, p2, 3);
        fputs(",\"axis\":", f);
        jvec(f, a, 3);
        fputc('}', f);
    }
    fputc(']', f);
}

/* Rods and beams: the points of the centreline (a body index, or a clamped node's point). */
static void json_tubes(FILE *f, const ld_model *m) {
    fputs(",\"tubes\":[", f);
    for (int i = 0; i < m->nrods + m->nbeams; ++i) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        jstr(f, i < m->nrods ? m->rods[i].name : m->beams[i - m->nrods].name);
        fprintf(f, ",\"radius\":%.7g,\"points\":[", ld_io_scene_tube_radius(m, i));
        if (i < m->nrods) {
            for (int k = 0; k <= m->rods[i].n; ++k)
                fprintf(f, "%s[%d]", k ? "," : "", m->rods[i].body0 + k);
        } else {
            const ld_beam *b = &m->beams[i - m->nrods];
            for (int k = 0; k < b->nnodes; ++k) {
                if (k) fputc(',', f);
                if (b->node_body[k] >= 0)
                    fprintf(f, "[%d]", b->node_body[k]);
                else
                    jvec(f, b->x0 + 3 * k, 3);
            }
        }
        fputs("]}", f);
    }
    fputc(']', f);
}

/* The force elements drawn (ld_io_scene_element): "elements": [{"name", "type", "draw" (spring,
 * torsion or line), "spring", "damper", "b1", "b2", "p1", "p2" (in the bodies' frames), "axis"
 * (in body1's)}]. */
static void json_elements(FILE *f, const ld_model *m) {
    static const char *const draw[] = {"", "spring", "torsion", "line"};
    fputs(",\"elements\":[", f);
    int k = 0;
    for (int i = 0; i < m->nelements; ++i) {
        view_element v;
        if (!ld_io_scene_element(m, i, &v)) continue;
        const ld_element *e = &m->elements[i];
        fprintf(f, "%s{\"name\":", k++ ? "," : "");
        jstr(f, e->name);
        fputs(",\"type\":", f);
        jstr(f, ld_element_type_name(e->type));
        fprintf(f, ",\"draw\":\"%s\",\"spring\":%d,\"damper\":%d,\"b1\":%d,\"b2\":%d,\"p1\":",
                draw[v.kind], v.spring, v.damper, e->body1, e->body2);
        jvec(f, v.p1, 3);
        fputs(",\"p2\":", f);
        jvec(f, v.p2, 3);
        fputs(",\"axis\":", f);
        jvec(f, v.axis1, 3);
        fputc('}', f);
    }
    fputc(']', f);
}

/* The ground: its shapes ("ground", world frame) and its plane ("plane": normal, point). 0 or
 * -1 (out of memory). */
static int json_ground(FILE *f, const ld_model *m) {
    view_shape *g = NULL;
    int ng = 0;
    if (ld_io_scene_ground(m, &g, &ng) != 0) return -1;
    json_shapes(f, "ground", g, ng);
    free(g);
    if (!m->plane.on) return 0;
    fputs(",\"plane\":{\"normal\":", f);
    jvec(f, m->plane.normal, 3);
    fputs(",\"point\":", f);
    jvec(f, m->plane.point, 3);
    fputc('}', f);
    return 0;
}

/* The frames' contacts, when recorded: "contacts": {"offsets": int32 per frame + 1, "data":
 * float32 × 10 per contact (point, normal, force on body1, gap)}, base64. */
static void json_contacts(FILE *f, const view_frames *F) {
    if (!F->with_contacts || !F->coff) return;
    fprintf(f, ",\"contacts\":{\"count\":%ld,\"offsets\":\"", F->nc);
    base64(f, (const unsigned char *)F->coff, ((size_t)F->n + 1) * sizeof *F->coff);
    fputs("\",\"data\":\"", f);
    base64(f, (const unsigned char *)F->cdat, (size_t)F->nc * VIEW_CONTACT_FLOATS * sizeof(float));
    fputs("\"}", f);
}

/* The model's meshes: "meshes": [{"nv", "nt", "lo", "hi", "v", "i"}] — v the vertices as
 * 16-bit steps across their box, p = lo + k (hi − lo)/65535 (3 unsigned little-endian
 * integers per vertex, base64; the error at most (hi − lo)/131070 per axis), i the triangles'
 * indices, uint16 when nv ≤ 65536, else uint32 (base64). 0 or -1 (out of memory). */
static int json_meshes(FILE *f, const ld_model *m) {
    fputs(",\"meshes\":[", f);
    for (int k = 0; k < m->nmeshes; ++k) {
        const ld_mesh *M = &m->meshes[k];
        size_t nv = 3 * (size_t)M->nverts, ni = 3 * (size_t)M->ntris;
        int wide = M->nverts > 65536;
        unsigned char *buf = ld_xmalloc(2 * nv + (wide ? 4 : 2) * ni + 1, "the mesh's encoding");
        if (!buf) return -1;
        for (size_t j = 0; j < nv; ++j) {
            double lo = M->lo[j % 3], w = M->hi[j % 3] - lo;
            long q = w > 0.0 ? lround(((double)M->verts[j] - lo) / w * 65535.0) : 0;
            q = q < 0 ? 0 : q > 65535 ? 65535 : q;
            buf[2 * j] = (unsigned char)(q & 255), buf[2 * j + 1] = (unsigned char)(q >> 8);
        }
        fprintf(f, "%s{\"nv\":%d,\"nt\":%d,\"lo\":[%.9g,%.9g,%.9g],\"hi\":[%.9g,%.9g,%.9g]",
                k ? "," : "", M->nverts, M->ntris, M->lo[0], M->lo[1], M->lo[2], M->hi[0], M->hi[1],
                M->hi[2]);
        fputs(",\"v\":\"", f);
        base64(f, buf, 2 * nv);
        unsigned char *p = buf;
        for (size_t j = 0; j < ni; ++j) {
            uint32_t x = (uint32_t)M->tris[j];
            for (int b = 0; b < (wide ? 4 : 2); ++b) *p++ = (unsigned char)(x >> (8 * b));
        }
        fputs("\",\"i\":\"", f);
        base64(f, buf, (size_t)(p - buf));
        fputs("\"}", f);
        free(buf);
    }
    fputc(']', f);
    return 0;
}

/* The run's data as one JSON object. */
static int json_data(FILE *f, const ld_model *m, const char *title, const view_frames *F) {
    view_shape *shapes = NULL;
    int ns = 0;
    unsigned char *node = ld_xcalloc((size_t)m->nbodies + 1, 1, "the viewer's scene");
    if (!node || ld_io_scene_shapes(m, &shapes, &ns, node) != 0) {
        free(node);
        return -1;
    }
    fputs("{\"title\":", f);
    jstr(f, title);
    double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                    m->gravity[2] * m->gravity[2]);
    double up[3] = {0.0, 0.0, 1.0};
    for (int i = 0; g > 0.0 && i < 3; ++i) up[i] = -m->gravity[i] / g;
    fputs(",\"up\":", f);
    jvec(f, up, 3);
    fprintf(f, ",\"nbodies\":%d,\"nframes\":%ld,\"bodies\":[", m->nbodies, F->n);
    for (int b = 0; b < m->nbodies; ++b) {
        fprintf(f, "%s{\"name\":", b ? "," : "");
        jstr(f, m->bodies[b].name);
        fprintf(f, ",\"node\":%d}", node[b]);
    }
    fputc(']', f);
    json_shapes(f, "shapes", shapes, ns);
    if (json_meshes(f, m) != 0 || json_ground(f, m) != 0) {
        free(shapes);
        free(node);
        return -1;
    }
    json_joints(f, m);
    json_tubes(f, m);
    json_elements(f, m);
    /* times as float64, poses and series as float32, little-endian (x86, ARM) base64 */
    fputs(",\"t\":\"", f);
    base64(f, (const unsigned char *)F->t, (size_t)F->n * sizeof(double));
    fputs("\",\"poses\":\"", f);
    base64(f, (const unsigned char *)F->pose, (size_t)F->n * 7 * (size_t)F->nb * sizeof(float));
    fputs("\",\"series\":[", f);
    float *col = ld_xmalloc((size_t)F->n * sizeof *col + 1, "the viewer's series");
    for (int s = 0; col && s < F->ns; ++s) {
        for (long i = 0; i < F->n; ++i) col[i] = F->val[(size_t)i * (size_t)F->ns + (size_t)s];
        fprintf(f, "%s{\"name\":", s ? "," : "");
        jstr(f, F->sname[s]);
        fputs(",\"data\":\"", f);
        base64(f, (const unsigned char *)col, (size_t)F->n * sizeof *col);
        fputs("\"}", f);
    }
    fputc(']', f);
    json_contacts(f, F);
    fputc('}', f);
    int bad = col == NULL;
    free(col);
    free(shapes);
    free(node);
    return bad ? -1 : 0;
}

int ld_io_html_write(const char *path, const ld_model *m, const char *title, const view_frames *F,
                     char *err, size_t cap) {
    const char *why = ld_io_html_missing();
    if (why) {
        snprintf(err, cap, "this liedyn was built without the HTML viewer: %s", why);
        return -1;
    }
    const char *marker = "<!--LIEDYN-PAYLOAD-->";
    const char *page = (const char *)ld_viewer_html;
    const char *at = strstr(page, marker);
    if (!at) {
        snprintf(err, cap, "the viewer's page has no payload marker");
        return -1;
    }
    safefile w;
    if (ld_io_safefile_open(&w, path, NULL, 0) != 0) {
        snprintf(err, cap, "%s", w.err);
        return -1;
    }
    FILE *f = w.f;
    fwrite(page, 1, (size_t)(at - page), f);
    fputs("<!-- three.js, inlined (gzip, base64); its licence:\n", f);
    script_text(f, ld_three_license, ld_three_license_len);
    fputs("-->\n<script type=\"application/octet-stream\" id=\"three-core\">", f);
    base64(f, ld_three_core, ld_three_core_len);
    fputs("</script>\n<script type=\"application/octet-stream\" id=\"three-module\">", f);
    base64(f, ld_three_module, ld_three_module_len);
    fputs("</script>\n<script type=\"application/json\" id=\"liedyn-data\">", f);
    int rc = json_data(f, m, title, F);
    fputs("</script>\n<script>\n", f);
    script_text(f, ld_viewer_js, ld_viewer_js_len);
    fputs("</script>\n", f);
    fputs(at + strlen(marker), f);
    if (rc != 0) {
        ld_io_safefile_abort(&w);
        snprintf(err, cap, "writing '%s' failed: %s", path, ld_oom_last_str());
        errno = ENOMEM;
        return -1;
    }
    if (ld_io_safefile_commit(&w) != 0) {
        snprintf(err, cap, "%s", w.err);
        return -1;
    }
    return 0;
}
