// A third-party action plugin in plain JavaScript: no build step, no dependencies. The default
// export is a factory; the loader calls it with the service's plugin SDK (definePlugin,
// defineAction, z, the injection tokens...), so the plugin uses the host's zod and types.

/** A tiny service of our own, registered in the plugin's private container. */
class Greeter {
  constructor(punctuation) {
    this.punctuation = punctuation;
  }
  greet(name) {
    return `Hello, ${name}${this.punctuation}`;
  }
}
const GREETER = Symbol('hello.Greeter');

export default ({ definePlugin, defineAction, variableName, boolean, z, LOGGER }) =>
  definePlugin({
    name: '@capture-examples/plugin-hello',

    // Runs once at start-up with a child container: what we register here is invisible to
    // other plugins, while core's services (HTTP_CLIENT, CLOCK...) resolve from the parent.
    register(container) {
      container.register(GREETER, { useValue: new Greeter('!') });
      // Overrides a core service for this plugin only: our actions' ctx.services.logger (and
      // container.resolve(LOGGER)) tag every line with the plugin; other plugins keep core's logger.
      if (container.isRegistered(LOGGER, true)) {
        container.registerInstance(LOGGER, container.resolve(LOGGER).child({ plugin: '@capture-examples/plugin-hello' }));
      }
    },

    actions: [
      defineAction({
        type: 'hello',
        title: 'Say Hello',
        category: 'example',
        description: 'Greets someone: sets $<variable_name>$ to the greeting and, with respond, answers with it.',
        parameters: z.object({
          name: z.string().min(1).default('world').describe('Who to greet; variables allowed, e.g. $request.query.name$'),
          variable_name: variableName().default('hello'),
          respond: boolean().optional().describe('Also use the greeting as the response body'),
        }),
        sets: ['<variable_name>'],
        untemplated: ['variable_name'],
        execute({ params, vars, response, log, container, services }) {
          const greeting = container.resolve(GREETER).greet(params.name);
          services.logger.info('Greeted', { name: params.name });
          vars.set(params.variable_name, greeting);
          if (params.respond) {
            response.content = greeting;
            response.contentType = 'text/plain';
          }
          log(greeting);
        },
      }),
    ],
  });
