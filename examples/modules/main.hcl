# Modules: one service module used twice, with different inputs. Each
# use's resources are addressed module.NAME.KIND.NAME
# (module.api.sandbox.web, module.worker.sandbox.web); a module's outputs
# are module.NAME.OUTPUT to its caller. main.cue writes the same project
# with a CUE package (service/service.cue): the two compile alike.

project = "modules-demo"

module "api" {
  source     = "./modules/service"
  from       = "python:3.12-slim"
  command    = ["python", "-m", "http.server", "8080"]
  memory     = "2Gi"
  cache_size = "20Gi"
  port       = 8080
}

module "worker" {
  source  = "./modules/service"
  from    = "python:3.12-slim"
  command = ["python", "-m", "worker"]
}

# The caller uses the api module's outputs: its cache volume and its port.
sandbox "client" {
  image   = image.sandbox
  command = ["sleep", "infinity"]
  env = {
    API_PORT = module.api.port
  }
  volume_mount {
    volume = module.api.cache
    path   = "/cache"
  }
}

# The project's own outputs, stored with the state and shown after apply
# (cc output): one of them is a module's output.
output "api_port" {
  value       = module.api.port
  description = "The port the api service listens on."
}
