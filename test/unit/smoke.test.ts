import * as k8s from '@kubernetes/client-node';
import Fastify from 'fastify';
test('esm deps load', async () => {
  expect(typeof k8s.KubeConfig).toBe('function');
  const app = Fastify();
  app.get('/', () => ({ ok: true }));
  const r = await app.inject('/');
  expect(r.json()).toEqual({ ok: true });
});
