// The security group of what only the VPC calls over HTTPS (internal ALB, interface endpoints).
import { Peer, Port, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { IVpc } from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';

/** A security group admitting TCP 443 from the VPC's address range, with no outbound rule of its own. */
export function httpsFromVpcSecurityGroup(
  scope: Construct,
  id: string,
  vpc: IVpc,
  descriptions: { readonly group: string; readonly ingress: string },
): SecurityGroup {
  const securityGroup = new SecurityGroup(scope, id, {
    vpc,
    description: descriptions.group,
    allowAllOutbound: false,
  });
  securityGroup.addIngressRule(Peer.ipv4(vpc.vpcCidrBlock), Port.tcp(443), descriptions.ingress);
  return securityGroup;
}
