/*
 * liedyn's HTML viewer (docs/viewer.md): animates a run stored in the page (the JSON element
 * "liedyn-data": bodies, shapes, meshes, joints, tubes, times, poses and series) with three.js, which
 * the page carries gzip-compressed in base64 and loads from blob URLs: no network.
 * The URL fragment sets the start: #t=TIME (or at=FRACTION of the run)&frames=1&joints=0&path=1
 * &plot=NAME,NAME&play=1&ui=0 (the 3-D view alone)&contacts=1 (the contacts' points and forces)
 * &ground=0&elements=0 (the force elements hidden)&deform=N (the deformation scale of rods and beams).
 * The page reports itself in the data-status of its body (ready or error) and errors in the title;
 * with mesh shapes also their triangles and the box they cover (data-mesh-triangles, -mesh-box);
 * and for the tests what it drew at the start (report(): data-deform, -tube-mid, -elements,
 * -markers, -plot, -rigid (the first rigid body's centre), -view-extent).
 */
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  function fail(msg) {
    document.title = 'ERROR: ' + msg;
    $('error').textContent = 'Error: ' + msg;
    document.body.dataset.status = 'error';
  }
  window.addEventListener('error', (e) => fail(e.message || String(e)));
  window.addEventListener('unhandledrejection', (e) =>
    fail(String((e.reason && e.reason.message) || e.reason)));

  function bytes(b64) {
    const s = atob(b64.trim());
    const a = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  async function gunzip(id) {
    const stream = new Blob([bytes($(id).textContent)]).stream()
      .pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text();
  }
  async function loadThree() {
    const core = await gunzip('three-core');
    const coreUrl = URL.createObjectURL(new Blob([core], { type: 'text/javascript' }));
    let mod = await gunzip('three-module');
    const q = JSON.stringify(coreUrl);
    mod = mod.split("'./three.core.js'").join(q).split('"./three.core.js"').join(q);
    const modUrl = URL.createObjectURL(new Blob([mod], { type: 'text/javascript' }));
    return import(modUrl);
  }

  function params() {
    const p = {};
    for (const kv of location.hash.replace(/^#/, '').split('&')) {
      const i = kv.indexOf('=');
      if (i > 0) p[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
    }
    return p;
  }

  async function main() {
    const D = JSON.parse($('liedyn-data').textContent);
    const THREE = await loadThree();
    const T = new Float64Array(bytes(D.t).buffer);
    const P = new Float32Array(bytes(D.poses).buffer);
    const NB = D.nbodies, NF = T.length;
    if (NF < 1) throw new Error('the file holds no frames');
    const series = D.series.map((s) => ({ name: s.name, data: new Float32Array(bytes(s.data).buffer) }));
    document.title = D.title + ' \u2014 liedyn viewer';
    $('title').textContent = D.title;

    // ---- renderer, scene, lights
    const host = $('main');
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    host.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0x30353d);
    const up = new THREE.Vector3().fromArray(D.up || [0, 0, 1]).normalize();
    const camera = new THREE.PerspectiveCamera(40, 1, 0.001, 1000);
    camera.up.copy(up);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    scene.add(sun);

    // ---- bodies and their shapes
    const palette = [0xd08a4a, 0x5b9bd5, 0x8cc068, 0xc06a9a, 0xd4c35a, 0x6ac4bc, 0xa08ad0, 0xd06a5a];
    const bodies = [];
    for (let b = 0; b < NB; b++) {
      const g = new THREE.Group();
      const ax = new THREE.AxesHelper(1);
      ax.visible = false;
      g.add(ax);
      g.userData.axes = ax;
      scene.add(g);
      bodies.push(g);
    }
    // ---- rods and beams: their nodes move as the displacement from the first frame times the
    // deformation scale (rigid bodies as they are); by default the scale that shows the largest
    // displacement at about a tenth of the length, a 1, 2 or 5 times a power of 10, at least 1
    const isNode = D.bodies.map((b) => !!b.node);
    const deformAuto = (() => {
      let s = Infinity;
      for (const tb of D.tubes) {
        const at0 = (p) => (p.length === 3 ? new THREE.Vector3().fromArray(p) : new THREE.Vector3().fromArray(P, 7 * p[0]));
        let len = 0, umax = 0;
        for (let i = 1; i < tb.points.length; i++) len += at0(tb.points[i]).distanceTo(at0(tb.points[i - 1]));
        for (const p of tb.points) {
          if (p.length === 3) continue;
          for (let f = 1; f < NF; f++) {
            const k = (f * NB + p[0]) * 7;
            umax = Math.max(umax, Math.hypot(P[k] - P[7 * p[0]], P[k + 1] - P[7 * p[0] + 1], P[k + 2] - P[7 * p[0] + 2]));
          }
        }
        if (umax > 0 && len > 0) s = Math.min(s, 0.1 * len / umax);
      }
      if (!(s > 1) || !Number.isFinite(s)) return 1;
      const e = Math.pow(10, Math.floor(Math.log10(s))), r = s / e;
      return (r >= 5 ? 5 : r >= 2 ? 2 : 1) * e;
    })();
    let deform = deformAuto;
    function nodeAt(f, b, s, out) { // body b's centre at frame f, a node's displacement scaled by s
      const k = (f * NB + b) * 7;
      out.set(P[k], P[k + 1], P[k + 2]);
      if (isNode[b] && s !== 1) out.sub(v0.fromArray(P, 7 * b)).multiplyScalar(s).add(v0.fromArray(P, 7 * b));
      return out;
    }
    const v0 = new THREE.Vector3();
    // the box of the centres over all frames and the fixed points (the ground's ends of the
    // joints, elements, tubes): the model's size without its shapes
    function skeletonBox(s) {
      const bx = new THREE.Box3(), w = new THREE.Vector3();
      for (let f = 0; f < NF; f++) for (let b = 0; b < NB; b++) bx.expandByPoint(nodeAt(f, b, s, w));
      for (const tb of D.tubes) for (const p of tb.points) if (p.length === 3) bx.expandByPoint(w.fromArray(p));
      for (const j of D.joints) if (j.b1 < 0) bx.expandByPoint(w.fromArray(j.p1));
      for (const e of D.elements || []) if (e.b1 < 0) bx.expandByPoint(w.fromArray(e.p1));
      return bx;
    }
    const skelSize = skeletonBox(deform).getSize(new THREE.Vector3()).length();

    const spheres = []; // per drawn shape its body and bounding sphere in the body's frame
    function addSphere(body, obj) {
      obj.updateMatrix();
      obj.geometry.computeBoundingSphere();
      spheres.push({ body, s: obj.geometry.boundingSphere.clone().applyMatrix4(obj.matrix) });
    }
    const thickness = []; // the smallest dimension of each shape (joint markers follow it)
    // the meshes, each built once and shared by its shapes: vertices as 16-bit steps across
    // their box (lo + k (hi - lo)/65535), indices uint16 or uint32 (nv > 65536)
    const meshShapes = []; // the mesh shapes drawn (the page reports their triangles and box)
    const meshGeo = (D.meshes || []).map((M) => {
      const q = new Uint16Array(bytes(M.v).buffer), pos = new Float32Array(3 * M.nv);
      for (let i = 0; i < 3 * M.nv; i++) {
        const c = i % 3;
        pos[i] = M.lo[c] + q[i] * (M.hi[c] - M.lo[c]) / 65535;
      }
      const raw = bytes(M.i).buffer;
      const idx = M.nv > 65536 ? new Uint32Array(raw) : new Uint16Array(raw);
      const geo = new THREE.BufferGeometry();
      geo.setAttribute('position', new THREE.BufferAttribute(pos, 3));
      geo.setIndex(new THREE.BufferAttribute(idx, 1));
      geo.computeBoundingSphere();
      return geo;
    });
    // a body without a shape is drawn as its inertia box, unless that box is a cube (the
    // inertia of a point or a sphere: no orientation, no size) or larger than half the model:
    // then as a small translucent sphere with its axes
    const markerBodies = [];
    function autoMarker(s) {
      const big = Math.max(...s.size), small = Math.min(...s.size);
      return big < 1.15 * small || (skelSize > 0 && big > 0.5 * skelSize);
    }
    for (const s of D.shapes) {
      let geo;
      const [a, l] = s.size;
      if (s.type === 'mesh') {
        const g = meshGeo[s.mesh], M = D.meshes[s.mesh];
        const color = s.color ? new THREE.Color(s.color[0], s.color[1], s.color[2])
          : new THREE.Color(palette[s.body % palette.length]);
        const mesh = new THREE.Mesh(g, new THREE.MeshStandardMaterial({
          color, roughness: 0.55, metalness: 0.15, flatShading: true }));
        mesh.position.fromArray(s.center);
        mesh.quaternion.set(s.q[1], s.q[2], s.q[3], s.q[0]);
        mesh.scale.fromArray(s.size); // a negative factor mirrors (three.js turns the faces)
        bodies[s.body].add(mesh);
        meshShapes.push(mesh);
        const ext = [0, 1, 2].map((c) => Math.abs(s.size[c]) * (M.hi[c] - M.lo[c]));
        thickness.push(Math.min(...ext));
        addSphere(s.body, mesh);
        continue;
      }
      if (s.auto && autoMarker(s)) { // no shape and an inertia box that tells nothing
        const big = Math.max(...s.size), r = skelSize > 0.1 * big ? 0.025 * skelSize : 0.3 * big;
        const m = new THREE.Mesh(new THREE.SphereGeometry(r, 24, 12), new THREE.MeshStandardMaterial({
          color: 0xb4b8c0, roughness: 0.6, transparent: true, opacity: 0.35, depthWrite: false }));
        m.add(new THREE.AxesHelper(1.8 * r));
        bodies[s.body].add(m);
        markerBodies.push(s.body);
        thickness.push(2 * r);
        addSphere(s.body, m);
        continue;
      }
      if (s.type === 'box') geo = new THREE.BoxGeometry(s.size[0], s.size[1], s.size[2]);
      else if (s.type === 'sphere') geo = new THREE.SphereGeometry(a, 32, 16);
      else {
        if (s.type === 'cylinder') geo = new THREE.CylinderGeometry(a, a, l, 32);
        else if (s.type === 'cone') geo = new THREE.CylinderGeometry(0, a, l, 32);
        else geo = new THREE.CapsuleGeometry(a, l, 8, 24);
        geo.rotateX(Math.PI / 2); // three's axis is y, the model's z of the shape
      }
      const color = s.color ? new THREE.Color(s.color[0], s.color[1], s.color[2])
        : new THREE.Color(palette[s.body % palette.length]);
      const mat = new THREE.MeshStandardMaterial({ // an inertia box: see-through
        color, roughness: 0.55, metalness: 0.15,
        transparent: !!s.auto, opacity: s.auto ? 0.5 : 1, depthWrite: !s.auto });
      const mesh = new THREE.Mesh(geo, mat);
      mesh.position.fromArray(s.center);
      mesh.quaternion.set(s.q[1], s.q[2], s.q[3], s.q[0]);
      bodies[s.body].add(mesh);
      thickness.push(s.type === 'box' ? Math.min(...s.size) : s.type === 'sphere' || s.type === 'capsule' ? 2 * a : Math.min(2 * a, l));
      addSphere(s.body, mesh);
    }

    function setPoses(f) {
      const o = f * NB * 7;
      for (let b = 0; b < NB; b++) {
        const k = o + 7 * b;
        nodeAt(f, b, deform, bodies[b].position);
        bodies[b].quaternion.set(P[k + 4], P[k + 5], P[k + 6], P[k + 3]);
      }
    }
    function bodyPoint0(b, p, out) { // a point of body b at the first frame
      out.fromArray(p);
      if (b >= 0) out.applyQuaternion(q0.set(P[7 * b + 4], P[7 * b + 5], P[7 * b + 6], P[7 * b + 3])).add(v0.fromArray(P, 7 * b));
      return out;
    }
    const q0 = new THREE.Quaternion();
    function bodyPoint(b, p, out) { // a point of body b (ground: spatial)
      out.fromArray(p);
      if (b >= 0) out.applyQuaternion(bodies[b].quaternion).add(bodies[b].position);
      return out;
    }

    // ---- bounding box over all frames (the nodes at the deformation scale), with the shapes
    let tubeR = 0;
    for (const tb of D.tubes) tubeR = Math.max(tubeR, tb.radius);
    function sceneBox(s) { // the skeleton, the tubes' radius, the shapes' spheres in every frame
      const bx = skeletonBox(s).expandByScalar(tubeR), w = new THREE.Vector3(), q = new THREE.Quaternion();
      for (let f = 0; f < NF; f++) {
        for (const sp of spheres) {
          const k = (f * NB + sp.body) * 7;
          w.copy(sp.s.center).applyQuaternion(q.set(P[k + 4], P[k + 5], P[k + 6], P[k + 3]));
          w.add(nodeAt(f, sp.body, s, v0s));
          bx.expandByPoint(w.addScalar(sp.s.radius)).expandByPoint(w.addScalar(-2 * sp.s.radius));
        }
      }
      return bx;
    }
    const v0s = new THREE.Vector3();
    const box = sceneBox(deform);
    const v = new THREE.Vector3();
    let size = box.getSize(new THREE.Vector3()).length() || 1;
    const centre = box.getCenter(new THREE.Vector3());
    for (const g of bodies) g.userData.axes.scale.setScalar(0.08 * size);
    for (const tb of D.tubes) thickness.push(2 * tb.radius);
    thickness.sort((x, y) => x - y);
    const typical = thickness.length ? thickness[thickness.length >> 1] : 0.02 * size;
    const markerR = Math.min(0.012 * size, Math.max(0.6 * typical, 0.002 * size));

    // ---- joints: a marker at the joint point, lines to both bodies' centres, the axis
    const jointGroup = new THREE.Group();
    scene.add(jointGroup);
    const nj = D.joints.length;
    const jointGeo = new THREE.BufferGeometry();
    const jointPos = new Float32Array(nj * 3 * 2 * 3);
    jointGeo.setAttribute('position', new THREE.BufferAttribute(jointPos, 3));
    jointGroup.add(new THREE.LineSegments(jointGeo, new THREE.LineBasicMaterial({ color: 0xffe070 })));
    const markers = D.joints.map(() => {
      const m = new THREE.Mesh(new THREE.SphereGeometry(markerR, 16, 8),
        new THREE.MeshStandardMaterial({ color: 0xffd040, emissive: 0x402000 }));
      jointGroup.add(m);
      return m;
    });
    const a1 = new THREE.Vector3(), a2 = new THREE.Vector3(), ax = new THREE.Vector3();
    function setJoints() {
      let k = 0;
      const put = (p) => { jointPos[k++] = p.x; jointPos[k++] = p.y; jointPos[k++] = p.z; };
      D.joints.forEach((j, i) => {
        bodyPoint(j.b2, j.p2, a2);
        markers[i].position.copy(a2);
        put(j.b1 >= 0 ? bodies[j.b1].position : bodyPoint(-1, j.p1, a1)); put(a2);
        put(bodies[j.b2].position); put(a2);
        ax.fromArray(j.axis);
        if (j.b1 >= 0) ax.applyQuaternion(bodies[j.b1].quaternion);
        ax.multiplyScalar(4 * markerR);
        put(a1.copy(a2).sub(ax)); put(a1.copy(a2).add(ax));
      });
      jointGeo.attributes.position.needsUpdate = true;
      jointGeo.computeBoundingSphere();
    }

    // ---- rods and beams as tubes through their nodes
    const tubes = D.tubes.map((tb) => {
      const mesh = new THREE.Mesh(new THREE.BufferGeometry(),
        new THREE.MeshStandardMaterial({ color: 0x7fb2e5, roughness: 0.5 }));
      scene.add(mesh);
      return { tb, mesh, pts: tb.points.map(() => new THREE.Vector3()) };
    });
    function setTubes() {
      for (const t of tubes) {
        t.tb.points.forEach((p, i) => {
          if (p.length === 3) t.pts[i].fromArray(p); else t.pts[i].copy(bodies[p[0]].position);
        });
        if (t.pts.length < 2) continue;
        const curve = new THREE.CatmullRomCurve3(t.pts, false, 'centripetal');
        t.mesh.geometry.dispose();
        t.mesh.geometry = new THREE.TubeGeometry(curve, Math.min(600, 4 * t.pts.length), t.tb.radius, 10, false);
      }
    }

    // ---- force elements: a spring-damper as a coil and a damper (a housing and a rod) between
    // its points, a rotational one as a torsion coil and a drum about its axis at its joint,
    // another (bushing, user force) as lines from body1's centre through its points to body2's
    const elementGroup = new THREE.Group();
    scene.add(elementGroup);
    const unitCyl = new THREE.CylinderGeometry(1, 1, 1, 20).rotateX(Math.PI / 2).translate(0, 0, 0.5); // along z, 0 … 1
    const zAxis = new THREE.Vector3(0, 0, 1);
    const coilMat = new THREE.LineBasicMaterial({ color: 0xdfe4ec });
    const lineMat = new THREE.LineBasicMaterial({ color: 0xff70d0 });
    const housingMat = new THREE.MeshStandardMaterial({ color: 0x6a7280, roughness: 0.5, metalness: 0.3 });
    const rodMat = new THREE.MeshStandardMaterial({ color: 0xc8ccd4, roughness: 0.3, metalness: 0.6 });
    const drumMat = new THREE.MeshStandardMaterial({ color: 0x8a93a0, roughness: 0.5, transparent: true, opacity: 0.7 });
    const COILS = 9, PER = 14; // a spring's turns, points per turn
    function coilLine(n) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
      const l = new THREE.Line(g, coilMat);
      l.frustumCulled = false;
      elementGroup.add(l);
      return l;
    }
    // a helix of `turns` turns and radius r about the segment a → b (straight leads of `lead`
    // at both ends) into line l's points
    const eu = new THREE.Vector3(), ew = new THREE.Vector3(), ee = new THREE.Vector3(), ep = new THREE.Vector3();
    function helix(l, a, b, r, turns, lead) {
      const pos = l.geometry.attributes.position.array, n = pos.length / 3;
      ee.subVectors(b, a);
      const len = ee.length() || 1e-12;
      ee.divideScalar(len);
      eu.set(1, 0, 0);
      if (Math.abs(eu.dot(ee)) > 0.9) eu.set(0, 1, 0);
      eu.addScaledVector(ee, -eu.dot(ee)).normalize();
      ew.crossVectors(ee, eu);
      const l0 = Math.min(lead, 0.25 * len);
      for (let i = 0; i < n; i++) { // a, the axis at l0, the turns, the axis at len − l0, b
        let x, rr = 0, ang = 0;
        if (i === 0) x = 0; else if (i === 1) x = l0; else if (i === n - 2) x = len - l0;
        else if (i === n - 1) x = len; else {
          const u = (i - 2) / (n - 5);
          x = l0 + u * (len - 2 * l0);
          ang = 2 * Math.PI * turns * u;
          rr = r;
        }
        ep.copy(a).addScaledVector(ee, x).addScaledVector(eu, rr * Math.cos(ang)).addScaledVector(ew, rr * Math.sin(ang));
        pos[3 * i] = ep.x; pos[3 * i + 1] = ep.y; pos[3 * i + 2] = ep.z;
      }
      l.geometry.attributes.position.needsUpdate = true;
    }
    function cylBetween(m, a, dir, len, r) { // the unit cylinder from a along dir (unit), len long
      m.position.copy(a);
      m.quaternion.setFromUnitVectors(zAxis, dir);
      m.scale.set(r, r, Math.max(len, 1e-9));
    }
    const ea = new THREE.Vector3(), eb = new THREE.Vector3(), ec = new THREE.Vector3(), ed = new THREE.Vector3();
    const elements = (D.elements || []).map((e) => {
      const it = { e, parts: {} };
      bodyPoint0(e.b1, e.p1, ea); bodyPoint0(e.b2, e.p2, eb);
      if (e.draw === 'spring') {
        it.len0 = ea.distanceTo(eb) || 0.1 * size;
        it.r = Math.min(0.04 * size, Math.max(markerR, 0.07 * it.len0));
        if (e.spring || !e.damper) it.parts.coil = coilLine(COILS * PER + 5);
        if (e.damper) {
          it.parts.housing = new THREE.Mesh(unitCyl, housingMat);
          it.parts.rod = new THREE.Mesh(unitCyl, rodMat);
          elementGroup.add(it.parts.housing, it.parts.rod);
        }
      } else if (e.draw === 'torsion') {
        it.r = Math.max(2 * markerR, 0.02 * size);
        if (e.spring) it.parts.coil = coilLine(4 * PER + 5);
        if (e.damper || !e.spring) {
          it.parts.drum = new THREE.Mesh(unitCyl, drumMat);
          elementGroup.add(it.parts.drum);
        }
      } else {
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(12), 3));
        it.parts.line = new THREE.Line(g, lineMat);
        it.parts.line.frustumCulled = false;
        elementGroup.add(it.parts.line);
      }
      return it;
    });
    function setElements() {
      for (const it of elements) {
        const e = it.e, P_ = it.parts;
        bodyPoint(e.b1, e.p1, ea); bodyPoint(e.b2, e.p2, eb);
        if (e.draw === 'spring') {
          const len = ea.distanceTo(eb);
          ed.subVectors(eb, ea).divideScalar(len || 1);
          if (P_.coil) helix(P_.coil, ea, eb, it.r, COILS, 0.1 * it.len0);
          if (P_.housing) { // the housing from a, half the initial length; the rod from b into it
            const hl = Math.min(0.5 * it.len0, 0.8 * len);
            cylBetween(P_.housing, ea, ed, hl, 0.45 * it.r);
            cylBetween(P_.rod, eb, ec.copy(ed).negate(), Math.max(0, len - 0.25 * hl), 0.12 * it.r);
          }
          it.ends = [ea.clone(), eb.clone()];
        } else if (e.draw === 'torsion') {
          ed.fromArray(e.axis);
          if (e.b1 >= 0) ed.applyQuaternion(bodies[e.b1].quaternion);
          const h = 1.2 * it.r;
          ec.copy(eb).addScaledVector(ed, -0.5 * h);
          if (P_.coil) helix(P_.coil, ec, ep.copy(eb).addScaledVector(ed, 0.5 * h), it.r, 4, 0.1 * h);
          if (P_.drum) cylBetween(P_.drum, ec, ed, h, P_.coil ? 0.7 * it.r : it.r);
          it.ends = [eb.clone(), eb.clone()];
        } else {
          const pos = P_.line.geometry.attributes.position.array;
          (e.b1 >= 0 ? bodies[e.b1].position : ea).toArray(pos, 0);
          ea.toArray(pos, 3); eb.toArray(pos, 6);
          bodies[e.b2].position.toArray(pos, 9);
          P_.line.geometry.attributes.position.needsUpdate = true;
          it.ends = [ea.clone(), eb.clone()];
        }
      }
    }

    // ---- the ground: its fixed shapes and its plane (a translucent square with a grid)
    const groundGroup = new THREE.Group();
    const groundBox = new THREE.Box3(); // the ground's shapes and plane (the camera's fit)
    scene.add(groundGroup);
    for (const s of D.ground || []) {
      let geo;
      const [a, l] = s.size;
      if (s.type === 'box') geo = new THREE.BoxGeometry(s.size[0], s.size[1], s.size[2]);
      else if (s.type === 'sphere') geo = new THREE.SphereGeometry(a, 32, 16);
      else {
        if (s.type === 'cylinder') geo = new THREE.CylinderGeometry(a, a, l, 32);
        else if (s.type === 'cone') geo = new THREE.CylinderGeometry(0, a, l, 32);
        else geo = new THREE.CapsuleGeometry(a, l, 8, 24);
        geo.rotateX(Math.PI / 2);
      }
      const color = s.color ? new THREE.Color(s.color[0], s.color[1], s.color[2]) : new THREE.Color(0x8a8f99);
      const mesh = new THREE.Mesh(geo, new THREE.MeshStandardMaterial({
        color, roughness: 0.8, metalness: 0.05, transparent: true, opacity: 0.55 }));
      mesh.position.fromArray(s.center);
      mesh.quaternion.set(s.q[1], s.q[2], s.q[3], s.q[0]);
      groundGroup.add(mesh);
      box.expandByObject(mesh);
      groundBox.expandByObject(mesh);
    }
    let planeMesh = null;
    if (D.plane) {
      const n = new THREE.Vector3().fromArray(D.plane.normal).normalize();
      const p0 = new THREE.Vector3().fromArray(D.plane.point);
      const c = box.getCenter(new THREE.Vector3());
      c.addScaledVector(n, p0.clone().sub(c).dot(n)); // the scene's centre on the plane
      const side = 1.5 * (box.getSize(new THREE.Vector3()).length() || 1);
      const q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
      planeMesh = new THREE.Mesh(new THREE.PlaneGeometry(side, side),
        new THREE.MeshStandardMaterial({ color: 0x6f8a6a, roughness: 0.9, transparent: true,
          opacity: 0.45, side: THREE.DoubleSide, depthWrite: false }));
      planeMesh.position.copy(c);
      planeMesh.quaternion.copy(q);
      groundGroup.add(planeMesh);
      const pg = new THREE.GridHelper(side, 20, 0x9fb59a, 0x7f937b);
      pg.quaternion.copy(q).multiply(new THREE.Quaternion().setFromUnitVectors(
        new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1)));
      pg.position.copy(c).addScaledVector(n, 1e-4 * side);
      groundGroup.add(pg);
      box.expandByPoint(c);
      groundBox.expandByPoint(c);
    }
    if (D.plane || (D.ground && D.ground.length)) { // the camera's fit takes the ground in
      size = box.getSize(new THREE.Vector3()).length() || 1;
      box.getCenter(centre);
    }

    // ---- contacts: per frame its points, normals and forces (float32 × 10 per contact)
    const CF = 10;
    const cOff = D.contacts ? new Int32Array(bytes(D.contacts.offsets).buffer) : null;
    const cDat = D.contacts && D.contacts.count > 0 ? new Float32Array(bytes(D.contacts.data).buffer) : new Float32Array(0);
    const contactGroup = new THREE.Group();
    contactGroup.visible = false;
    scene.add(contactGroup);
    let setContacts = () => {};
    if (cOff) {
      // the force scale: the 95th percentile of |F| over the run draws 0.15 of the scene
      const mags = [];
      for (let i = 0; i < cDat.length; i += CF) mags.push(Math.hypot(cDat[i + 6], cDat[i + 7], cDat[i + 8]));
      mags.sort((x, y) => x - y);
      const fRef = mags.length ? mags[Math.min(mags.length - 1, Math.floor(0.95 * mags.length))] : 0;
      const sceneLen = box.getSize(new THREE.Vector3()).length() || 1;
      const fScale = fRef > 0 ? 0.15 * sceneLen / fRef : 0;
      const fMax = 0.4 * sceneLen; // longer arrows are clipped
      let cap = 1;
      for (let f = 0; f + 1 < cOff.length; f++) cap = Math.max(cap, cOff[f + 1] - cOff[f]);
      const ptPos = new Float32Array(3 * cap), lnPos = new Float32Array(12 * cap), lnCol = new Float32Array(12 * cap);
      const ptGeo = new THREE.BufferGeometry(), lnGeo = new THREE.BufferGeometry();
      ptGeo.setAttribute('position', new THREE.BufferAttribute(ptPos, 3));
      lnGeo.setAttribute('position', new THREE.BufferAttribute(lnPos, 3));
      lnGeo.setAttribute('color', new THREE.BufferAttribute(lnCol, 3));
      contactGroup.add(new THREE.Points(ptGeo, new THREE.PointsMaterial({
        color: 0xffff40, size: 7, sizeAttenuation: false, depthTest: false })));
      contactGroup.add(new THREE.LineSegments(lnGeo, new THREE.LineBasicMaterial({
        vertexColors: true, depthTest: false })));
      contactGroup.renderOrder = 10;
      setContacts = (f) => {
        const a = cOff[f], n = cOff[f + 1] - a;
        const clip = (x) => Math.max(-fMax, Math.min(fMax, x));
        for (let i = 0; i < n; i++) {
          const d = cDat.subarray((a + i) * CF, (a + i + 1) * CF);
          const fn = d[3] * d[6] + d[4] * d[7] + d[5] * d[8];
          const L = clip(fn * fScale);
          for (let c = 0; c < 3; c++) {
            ptPos[3 * i + c] = d[c];
            const ft = (d[6 + c] - fn * d[3 + c]) * fScale;
            lnPos[12 * i + c] = d[c]; lnPos[12 * i + 3 + c] = d[c] + L * d[3 + c];
            lnPos[12 * i + 6 + c] = d[c]; lnPos[12 * i + 9 + c] = d[c] + clip(ft);
          }
          lnCol.set([1, 0.3, 0.25, 1, 0.3, 0.25, 0.3, 0.9, 1, 0.3, 0.9, 1], 12 * i);
        }
        ptGeo.setDrawRange(0, n);
        lnGeo.setDrawRange(0, 4 * n);
        ptGeo.attributes.position.needsUpdate = true;
        lnGeo.attributes.position.needsUpdate = true;
        lnGeo.attributes.color.needsUpdate = true;
        ptGeo.computeBoundingSphere();
        lnGeo.computeBoundingSphere();
        $('contactsLabel').title = n + ' contacts at t = ' + T[f].toPrecision(6) + ' s; normal force (red) and friction (cyan) on the first body, ' + (fScale > 0 ? (1 / fScale).toPrecision(3) + ' N per m' : 'no force');
        document.body.dataset.contacts = String(n);
      };
      $('contactsLabel').style.display = '';
    }
    if (D.plane || (D.ground && D.ground.length)) $('groundLabel').style.display = '';

    // ---- ground grid, path
    const grid = new THREE.GridHelper(1.5 * size, 20, 0x667080, 0x4a505a);
    grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
    const low = new THREE.Vector3().copy(centre).addScaledVector(up, -up.dot(box.getSize(v)) / 2);
    grid.position.copy(low);
    grid.visible = !D.plane; // the plane carries its own grid
    $('showGrid').checked = grid.visible;
    scene.add(grid);
    const pathBody = (() => {
      for (let b = 0; b < NB; b++) if (!D.bodies[b].node) return b;
      return NB - 1;
    })();
    const pathPts = new Float32Array(NF * 3);
    for (let f = 0; f < NF; f++) for (let c = 0; c < 3; c++) pathPts[3 * f + c] = P[(f * NB + pathBody) * 7 + c];
    const pathGeo = new THREE.BufferGeometry();
    pathGeo.setAttribute('position', new THREE.BufferAttribute(pathPts, 3));
    const path = new THREE.Line(pathGeo, new THREE.LineBasicMaterial({ color: 0xff7060 }));
    path.visible = false;
    scene.add(path);

    // ---- camera: orbit about a target, z of the orbit = up
    const side = new THREE.Vector3(1, 0, 0);
    if (Math.abs(side.dot(up)) > 0.9) side.set(0, 1, 0);
    side.addScaledVector(up, -side.dot(up)).normalize();
    const fwd = new THREE.Vector3().crossVectors(up, side);
    const orbit = { target: new THREE.Vector3(), dist: 1, az: -0.9, el: 0.45 };
    function viewDir(out) { // from the target to the camera
      const c = Math.cos(orbit.el);
      return out.set(0, 0, 0).addScaledVector(side, c * Math.cos(orbit.az))
        .addScaledVector(fwd, c * Math.sin(orbit.az)).addScaledVector(up, Math.sin(orbit.el));
    }
    const fitBoxes = new Map(); // per deformation scale (a resize fits again)
    function fitBox() { // all frames, the nodes at the deformation scale shown, the ground
      if (!fitBoxes.has(deform)) {
        const b = sceneBox(deform);
        if (!groundBox.isEmpty()) b.union(groundBox);
        fitBoxes.set(deform, b);
      }
      return fitBoxes.get(deform).clone();
    }
    // the camera along the start direction, at the distance where the box's corners fill at most
    // 90 % of the view's width and height (the canvas beside the side panel), centred in it
    function fit() {
      orbit.az = -0.9; orbit.el = 0.45;
      const b = fitBox(), c = b.getCenter(new THREE.Vector3());
      const dir = viewDir(new THREE.Vector3());
      const right = new THREE.Vector3().crossVectors(up, dir).normalize();
      const camUp = new THREE.Vector3().crossVectors(dir, right);
      const ty = 0.9 * Math.tan(0.5 * camera.fov * Math.PI / 180), tx = ty * camera.aspect;
      const pts = [];
      for (let i = 0; i < 8; i++) {
        v.set(i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y, i & 4 ? b.max.z : b.min.z).sub(c);
        pts.push([v.dot(right), v.dot(camUp), v.dot(dir)]);
      }
      const mid = (k) => 0.5 * (Math.min(...pts.map((p) => p[k])) + Math.max(...pts.map((p) => p[k])));
      const xm = mid(0), ym = mid(1);
      let d = 0;
      for (const [x, y, z] of pts) d = Math.max(d, z + Math.abs(x - xm) / tx, z + Math.abs(y - ym) / ty);
      orbit.target.copy(c).addScaledVector(right, xm).addScaledVector(camUp, ym);
      orbit.dist = d > 0 ? d : 1;
      userMoved = false;
    }
    let userMoved = false; // until the camera is moved, a new size of the window fits again
    function viewExtent() { // the largest |x|, |y| of the fitted box's corners in the view (≤ 1: all seen)
      const b = fitBox();
      let e = 0;
      for (let i = 0; i < 8; i++) {
        v.set(i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y, i & 4 ? b.max.z : b.min.z).project(camera);
        e = Math.max(e, Math.abs(v.x), Math.abs(v.y));
      }
      return e;
    }
    function placeCamera() {
      const dir = viewDir(new THREE.Vector3());
      camera.position.copy(orbit.target).addScaledVector(dir, orbit.dist);
      camera.near = orbit.dist / 1000; camera.far = orbit.dist * 100;
      camera.lookAt(orbit.target);
      camera.updateProjectionMatrix();
      sun.position.copy(camera.position).addScaledVector(up, orbit.dist);
    }
    let drag = null;
    renderer.domElement.addEventListener('contextmenu', (e) => e.preventDefault());
    renderer.domElement.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
      renderer.domElement.setPointerCapture(e.pointerId);
    });
    renderer.domElement.addEventListener('pointerup', () => { drag = null; });
    renderer.domElement.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      if (drag.pan) {
        const right = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
        const camUp = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 1);
        const k = orbit.dist * 0.0015;
        orbit.target.addScaledVector(right, -dx * k).addScaledVector(camUp, dy * k);
      } else {
        orbit.az -= dx * 0.008;
        orbit.el = Math.max(-1.55, Math.min(1.55, orbit.el + dy * 0.008));
      }
      dirty = true;
      userMoved = true;
    });
    renderer.domElement.addEventListener('wheel', (e) => {
      e.preventDefault();
      orbit.dist *= Math.exp(e.deltaY * 0.001);
      dirty = true;
      userMoved = true;
    }, { passive: false });

    // ---- plot panel
    const quantities = [];
    const byName = {};
    for (const s of series) if (s.name === 'energy' || s.name === 'constraint_residual') quantities.push(s);
    for (let b = 0; b < NB; b++) {
      if (isNode[b]) continue;
      for (let c = 0; c < 3; c++) {
        const data = new Float32Array(NF);
        for (let f = 0; f < NF; f++) data[f] = P[(f * NB + b) * 7 + c];
        quantities.push({ name: D.bodies[b].name + '.' + 'xyz'[c], data });
      }
    }
    // the nodes of rods and beams: their displacement from the first frame (ux uy uz), every
    // node up to 101 a tube, else 101 of them evenly spread (both ends and the middle among them)
    let midNode = null; // the middle node of the first tube: plotted first in a model of tubes only
    for (const tb of D.tubes) {
      const nodes = tb.points.map((p, i) => [p, i]).filter(([p]) => p.length === 1).map(([p]) => p[0]);
      const n = nodes.length, pick = new Set();
      if (n <= 101) nodes.forEach((b) => pick.add(b));
      else for (let i = 0; i <= 100; i++) pick.add(nodes[Math.round(i * (n - 1) / 100)]);
      if (n) pick.add(nodes[(n - 1) >> 1]);
      const mid = tb.points[(tb.points.length - 1) >> 1];
      for (const b of nodes) {
        if (!pick.has(b)) continue;
        const qs = [];
        for (let c = 0; c < 3; c++) {
          const data = new Float32Array(NF);
          for (let f = 0; f < NF; f++) data[f] = P[(f * NB + b) * 7 + c] - P[7 * b + c];
          qs.push({ name: D.bodies[b].name + '.u' + 'xyz'[c], data });
        }
        quantities.push(...qs);
        if (!midNode && mid.length === 1 && mid[0] === b) midNode = qs;
      }
    }
    for (const s of series) if (s.name !== 'energy' && s.name !== 'constraint_residual') quantities.push(s);
    const sel = $('qty');
    for (const qn of quantities) {
      byName[qn.name] = qn;
      const o = document.createElement('option');
      o.textContent = o.value = qn.name;
      sel.appendChild(o);
    }
    const canvas = $('plot');
    const colors = ['#ffb74d', '#64b5f6', '#81c784', '#e57373', '#ba68c8', '#4dd0e1'];
    function chosen() { return Array.from(sel.selectedOptions).map((o) => byName[o.value]); }
    function drawPlot(f) {
      const w = canvas.clientWidth, h = canvas.clientHeight, r = window.devicePixelRatio || 1;
      if (canvas.width !== Math.round(w * r) || canvas.height !== Math.round(h * r)) {
        canvas.width = Math.round(w * r); canvas.height = Math.round(h * r);
      }
      const g = canvas.getContext('2d');
      g.setTransform(r, 0, 0, r, 0, 0);
      g.clearRect(0, 0, w, h);
      const qs = chosen();
      let lo = Infinity, hi = -Infinity;
      for (const q of qs) for (const x of q.data) if (Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
      const L = 78, R = 8, Tp = 8, B = 22;
      g.font = '11px system-ui, sans-serif';
      g.fillStyle = '#99a';
      const t0 = T[0], t1 = T[NF - 1] > T[0] ? T[NF - 1] : T[0] + 1;
      const X = (t) => L + (w - L - R) * (t - t0) / (t1 - t0);
      g.fillText(t0.toPrecision(4), L, h - 6);
      g.textAlign = 'right';
      g.fillText(T[NF - 1].toPrecision(4) + ' s', w - R, h - 6);
      if (qs.length && lo <= hi) {
        if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) { lo -= 0.5; hi += 0.5; }
        const Y = (y) => Tp + (h - Tp - B) * (hi - y) / (hi - lo);
        const digits = Math.min(12, Math.max(4, 2 + Math.ceil(Math.log10(
          Math.max(Math.abs(hi), Math.abs(lo)) / (hi - lo)))));
        g.fillText(hi.toPrecision(digits), L - 4, Tp + 8);
        g.fillText(lo.toPrecision(digits), L - 4, h - B);
        g.textAlign = 'left';
        qs.forEach((q, i) => {
          g.strokeStyle = colors[i % colors.length];
          g.beginPath();
          let pen = false;
          for (let k = 0; k < NF; k++) {
            const y = q.data[k];
            if (!Number.isFinite(y)) { pen = false; continue; }
            if (pen) g.lineTo(X(T[k]), Y(y)); else g.moveTo(X(T[k]), Y(y));
            pen = true;
          }
          g.stroke();
          g.fillStyle = colors[i % colors.length];
          g.fillText(q.name + ' = ' + (Number.isFinite(q.data[f]) ? q.data[f].toPrecision(6) : '-'), L + 6, Tp + 12 + 13 * i);
        });
      } else {
        g.textAlign = 'left';
        g.fillText('choose quantities above', L + 6, Tp + 12);
      }
      g.strokeStyle = '#556';
      g.strokeRect(L, Tp, w - L - R, h - Tp - B);
      g.strokeStyle = '#fff';
      g.beginPath(); g.moveTo(X(T[f]), Tp); g.lineTo(X(T[f]), h - B); g.stroke();
    }

    // ---- time and controls
    const slider = $('slider');
    slider.max = String(NF - 1);
    let frame = 0, playing = false, simT = T[0], lastWall = 0, dirty = true;
    function frameAt(t) { // the last frame at or before t
      let lo = 0, hi = NF - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (T[mid] <= t + 1e-12) lo = mid; else hi = mid - 1; }
      return lo;
    }
    function show(f) {
      frame = f;
      setPoses(f);
      setJoints();
      setTubes();
      setElements();
      setContacts(f);
      slider.value = String(f);
      $('time').textContent = 't = ' + T[f].toFixed(4) + ' s';
      drawPlot(f);
      dirty = true;
    }
    function report() {
      const ds = document.body.dataset, r = (x) => x.toPrecision(7);
      ds.deform = String(deform);
      if (tubes.length && tubes[0].pts.length) ds.tubeMid = tubes[0].pts[(tubes[0].pts.length - 1) >> 1].toArray().map(r).join(' ');
      if (elements.length) ds.elements = elements.map((it) => it.e.draw + ':' + it.ends.map((p) => p.toArray().map(r).join(' ')).join(' ')).join(';');
      ds.markers = String(markerBodies.length);
      const rigid = isNode.indexOf(false);
      if (rigid >= 0) ds.rigid = bodies[rigid].position.toArray().map(r).join(' ');
      ds.plot = chosen().map((q) => q.name).join(',');
      ds.viewExtent = viewExtent().toFixed(4);
    }
    function setPlaying(p) {
      playing = p;
      $('play').innerHTML = p ? '&#10074;&#10074; pause' : '&#9654; play';
      lastWall = performance.now();
      if (p && frame >= NF - 1) simT = T[0];
    }
    $('play').onclick = () => setPlaying(!playing);
    slider.oninput = () => { setPlaying(false); simT = T[+slider.value]; show(+slider.value); };
    $('fit').onclick = () => { fit(); dirty = true; };
    const toggles = {
      showFrames: (on) => bodies.forEach((g) => { g.userData.axes.visible = on; }),
      showJoints: (on) => { jointGroup.visible = on; },
      showGrid: (on) => { grid.visible = on; },
      showPath: (on) => { path.visible = on; },
      showGround: (on) => { groundGroup.visible = on; },
      showContacts: (on) => { contactGroup.visible = on; },
      showElements: (on) => { elementGroup.visible = on; },
    };
    for (const id in toggles) $(id).onchange = () => { toggles[id]($(id).checked); dirty = true; };
    sel.onchange = () => drawPlot(frame);
    window.addEventListener('keydown', (e) => {
      if (e.target === sel) return;
      if (e.key === ' ') { e.preventDefault(); setPlaying(!playing); }
      if (e.key === 'ArrowRight') { setPlaying(false); show(Math.min(NF - 1, frame + 1)); simT = T[frame]; }
      if (e.key === 'ArrowLeft') { setPlaying(false); show(Math.max(0, frame - 1)); simT = T[frame]; }
    });
    function resize() {
      renderer.setSize(host.clientWidth, host.clientHeight);
      camera.aspect = host.clientWidth / Math.max(1, host.clientHeight);
      if (!userMoved) fit();
      dirty = true;
      drawPlot(frame);
    }
    window.addEventListener('resize', resize);

    // ---- the URL fragment
    const hp = params();
    if (hp.ui === '0') { // the 3-D view alone (tests compare pictures of it)
      for (const id of ['side', 'bar', 'title']) $(id).style.display = 'none';
      host.style.right = host.style.bottom = '0';
    }
    if (hp.frames === '1') { $('showFrames').checked = true; toggles.showFrames(true); }
    if (hp.joints === '0') { $('showJoints').checked = false; toggles.showJoints(false); }
    if (hp.path === '1') { $('showPath').checked = true; toggles.showPath(true); }
    if (hp.contacts === '1') { $('showContacts').checked = true; toggles.showContacts(true); }
    if (hp.ground === '0') { $('showGround').checked = false; toggles.showGround(false); }
    if (hp.elements === '0') { $('showElements').checked = false; toggles.showElements(false); }
    if (D.tubes.length) {
      $('deformLabel').style.display = '';
      $('deformLabel').title = 'displacements of the nodes of rods and beams from the first frame drawn this many times (' +
        deformAuto + ': the largest at about a tenth of the length); rigid bodies as they are';
      if (hp.deform !== undefined && +hp.deform > 0) deform = +hp.deform;
      $('deform').value = String(deform);
      $('deform').onchange = () => {
        const x = +$('deform').value;
        if (!(x > 0)) { $('deform').value = String(deform); return; }
        deform = x;
        show(frame);
      };
    }
    if (elements.length) $('elementsLabel').style.display = '';
    let dflt = ['energy'];
    if (midNode && isNode.every((x) => x)) { // the middle node's component that moves most
      const span = (q) => {
        let lo = Infinity, hi = -Infinity;
        for (const x of q.data) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        return hi - lo;
      };
      dflt = [midNode.reduce((a, q) => (span(q) > span(a) ? q : a)).name];
    }
    const want = (hp.plot ? hp.plot.split(',') : dflt);
    for (const o of sel.options) o.selected = want.includes(o.value);
    if (hp.t !== undefined && Number.isFinite(+hp.t)) simT = +hp.t;
    if (hp.at !== undefined && Number.isFinite(+hp.at)) simT = T[0] + (+hp.at) * (T[NF - 1] - T[0]);

    resize();
    show(frameAt(simT));
    placeCamera();
    renderer.render(scene, camera);
    dirty = false;
    if (hp.play === '1') setPlaying(true);
    if (meshShapes.length) { // what the mesh shapes cover at the frame shown (the tests read it)
      const mb = new THREE.Box3();
      let tris = 0;
      for (const m of meshShapes) { mb.expandByObject(m, true); tris += m.geometry.index.count / 3; }
      document.body.dataset.meshTriangles = String(tris);
      document.body.dataset.meshBox = [...mb.min.toArray(), ...mb.max.toArray()].map((x) => x.toPrecision(7)).join(' ');
    }
    // what the tests read: the deformation scale, the middle point of the first tube, the
    // elements (each: draw kind and the ends at the frame shown), bodies drawn as markers and
    // how much of the view the fitted box takes (≤ 1: all of it seen)
    document.body.dataset.status = 'ready';
    document.body.dataset.frame = String(frame);
    document.body.dataset.t = String(T[frame]);
    report();

    function tick(now) {
      if (playing) {
        simT += (now - lastWall) / 1000 * +$('speed').value;
        lastWall = now;
        if (simT >= T[NF - 1]) { simT = T[NF - 1]; setPlaying(false); }
        const f = frameAt(simT);
        if (f !== frame) show(f);
      }
      if (dirty) { placeCamera(); renderer.render(scene, camera); dirty = false; }
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  }
  main().catch((e) => fail((e && e.message) || String(e)));
})();
