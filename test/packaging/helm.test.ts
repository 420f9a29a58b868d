/**
 * The Helm chart (`deploy/helm/mcp-gateway`), rendered by the test's own renderer of the
 * template language (`./_helm.ts`, no helm binary here) and parsed: the objects it makes, their
 * security context and probes, the Secret behind every `${VAR}` of the ConfigMap's gateway.yaml
 * (which the gateway's own config loader accepts), and the optional Redis of gateway.cluster.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { parseConfig } from "../../src/config/mod.ts";
import { ROOT } from "../_helpers/gateway.ts";
import { renderChart } from "./_helm.ts";

const CHART = join(ROOT, "deploy/helm/mcp-gateway");
const TOKEN = "helm-chart-token-0123456789abcdef";
const KEY = "k".repeat(40);

// deno-lint-ignore no-explicit-any
type K8s = any;

/** The objects of the chart rendered with `values`, by kind and name. */
function objects(values: Record<string, unknown>): Map<string, K8s> {
  const docs = parseAllDocuments(renderChart(CHART, values));
  const out = new Map<string, K8s>();
  for (const doc of docs) {
    assert.deepEqual(doc.errors, [], "the rendered YAML parses");
    const o = doc.toJS();
    if (o) out.set(`${o.kind}/${o.metadata.name}`, o);
  }
  return out;
}

const withToken = (more: Record<string, unknown> = {}) => ({
  auth: { tokens: [{ name: "agents", value: TOKEN, tools: ["github__*"] }] },
  ...more,
});

/** The gateway.yaml of the ConfigMap, loaded as the gateway would with the Secret's env. */
function gatewayConfig(all: Map<string, K8s>) {
  const yaml = all.get("ConfigMap/gw-mcp-gateway").data["gateway.yaml"];
  const secret = all.get("Secret/gw-mcp-gateway");
  return {
    yaml,
    config: parseConfig(yaml, { file: "/etc/mcp-gateway/gateway.yaml", env: secret.stringData }),
  };
}

describe("the Helm chart", () => {
  it("renders a Deployment, Service, ConfigMap and Secret, and nothing else by default", () => {
    const all = objects(withToken());
    assert.deepEqual([...all.keys()].sort(), [
      "ConfigMap/gw-mcp-gateway",
      "Deployment/gw-mcp-gateway",
      "Secret/gw-mcp-gateway",
      "Service/gw-mcp-gateway",
    ]);
  });

  it("runs the gateway as the image's non-root user, unable to gain privileges", () => {
    const pod = objects(withToken()).get("Deployment/gw-mcp-gateway").spec.template.spec;
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.runAsUser, 10001);
    const [c] = pod.containers;
    assert.equal(c.image, "mcp-gateway:0.1.0");
    assert.equal(c.securityContext.allowPrivilegeEscalation, false);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(c.securityContext.capabilities.drop, ["ALL"]);
  });

  it("probes /healthz for liveness and /readyz for readiness on the http port", () => {
    const all = objects(withToken());
    const [c] = all.get("Deployment/gw-mcp-gateway").spec.template.spec.containers;
    assert.deepEqual(c.livenessProbe.httpGet, { path: "/healthz", port: "http" });
    assert.deepEqual(c.readinessProbe.httpGet, { path: "/readyz", port: "http" });
    assert.deepEqual(c.ports, [{ name: "http", containerPort: 8787, protocol: "TCP" }]);
    const svc = all.get("Service/gw-mcp-gateway");
    assert.equal(svc.spec.ports[0].targetPort, "http");
    const podLabels = all.get("Deployment/gw-mcp-gateway").spec.template.metadata.labels;
    for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(podLabels[k], v, k);
  });

  it("mounts gateway.yaml from the ConfigMap and keeps state in /data", () => {
    const pod = objects(withToken()).get("Deployment/gw-mcp-gateway").spec.template.spec;
    const volumes = new Map(pod.volumes.map((v: K8s) => [v.name, v]));
    assert.equal((volumes.get("config") as K8s).configMap.name, "gw-mcp-gateway");
    const mounts = new Map(pod.containers[0].volumeMounts.map((m: K8s) => [m.mountPath, m.name]));
    assert.equal(mounts.get("/etc/mcp-gateway"), "config");
    assert.equal(mounts.get("/data"), "data");
    assert.deepEqual(pod.containers[0].args, ["--config", "/etc/mcp-gateway/gateway.yaml"]);
  });

  it("writes a gateway.yaml the gateway accepts, its secrets only in the Secret", () => {
    const all = objects(
      withToken({ secretsKey: KEY, servers: { docs: { url: "https://mcp.example.test/mcp" } } }),
    );
    const { yaml, config } = gatewayConfig(all);
    assert.ok(!yaml.includes(TOKEN) && !yaml.includes(KEY), "no secret in the ConfigMap");
    assert.equal(config.gateway.host, "0.0.0.0");
    assert.equal(config.gateway.port, 8787);
    assert.equal(config.gateway.secretsKey, KEY);
    assert.deepEqual(config.gateway.tokens?.map((t) => [t.name, t.token, t.tools]), [
      ["agents", TOKEN, ["github__*"]],
    ]);
    assert.deepEqual(config.servers.map((s) => s.name), ["docs"]);
    // Every secretKeyRef names a key the Secret has.
    const secret = all.get("Secret/gw-mcp-gateway");
    const [c] = all.get("Deployment/gw-mcp-gateway").spec.template.spec.containers;
    for (const e of c.env) {
      assert.equal(e.valueFrom.secretKeyRef.name, "gw-mcp-gateway");
      assert.ok(e.valueFrom.secretKeyRef.key in secret.stringData, e.name);
    }
  });

  it("adds a Redis for gateway.cluster when asked, with the state key from the Secret", () => {
    const all = objects(withToken({ replicaCount: 3, redis: { enabled: true, stateKey: KEY } }));
    assert.ok(all.has("Deployment/gw-mcp-gateway-redis"));
    const redisSvc = all.get("Service/gw-mcp-gateway-redis");
    const { config } = gatewayConfig(all);
    assert.equal(config.gateway.cluster?.redisUrl, `redis://${redisSvc.metadata.name}:6379`);
    assert.equal(config.gateway.cluster?.stateKey, KEY);
    const redisPod = all.get("Deployment/gw-mcp-gateway-redis").spec.template.spec;
    assert.equal(redisPod.securityContext.runAsNonRoot, true);
    for (const [k, v] of Object.entries(redisSvc.spec.selector)) {
      assert.equal(all.get("Deployment/gw-mcp-gateway-redis").spec.template.metadata.labels[k], v);
    }
    assert.equal(all.get("Deployment/gw-mcp-gateway").spec.replicas, 3);
  });

  it("uses an existing Secret instead of its own, and a volume claim when persistence is on", () => {
    const all = objects({
      auth: { existingSecret: "mine", tokens: [{ name: "a" }] },
      persistence: { enabled: true, size: "2Gi" },
    });
    assert.ok(!all.has("Secret/gw-mcp-gateway"));
    const pod = all.get("Deployment/gw-mcp-gateway").spec.template.spec;
    assert.ok(pod.containers[0].env.every((e: K8s) => e.valueFrom.secretKeyRef.name === "mine"));
    const data = pod.volumes.find((v: K8s) => v.name === "data");
    assert.equal(data.persistentVolumeClaim.claimName, "gw-mcp-gateway");
    assert.equal(
      all.get("PersistentVolumeClaim/gw-mcp-gateway").spec.resources.requests.storage,
      "2Gi",
    );
  });

  it("refuses to render a token without a value", () => {
    assert.throws(() => objects({}), /every auth\.tokens entry needs a value/);
  });
});
